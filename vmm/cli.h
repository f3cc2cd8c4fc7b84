/* SPDX-License-Identifier: MIT */
#ifndef VMM_CLI_H
#define VMM_CLI_H

#include "vm.h"

/* Parse argv into @cfg; prints a clear error and exits EXIT_USAGE on bad input. */
void cli_parse(int argc, char **argv, struct vmm_config *cfg);

/* the version --version prints */
extern const char cli_version[];

#endif
