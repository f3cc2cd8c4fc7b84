/* SPDX-License-Identifier: MIT */
/* One thread per vCPU (vcpu.c): KVM_RUN, exit_dispatch(), again. */
#ifndef VMM_VCPU_H
#define VMM_VCPU_H

struct vcpu;
struct vm;

void vcpu_start(struct vcpu *v);	/* create the thread (parked or not) */
void vcpu_release(struct vcpu *v);	/* PARKED -> RUNNING */
void vcpus_stop(struct vm *vm);		/* stop and join every thread */

#endif
