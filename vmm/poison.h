/* SPDX-License-Identifier: MIT */
/*
 * Forced into every object of vmm/ but vmm/kvm/'s (the Makefile's
 * -include): KVM is reached through ioctl(), and only vmm/kvm/ may call
 * it.  Anywhere else a call, or a header that declares ioctl(), stops
 * the build with "attempt to use poisoned \"ioctl\"".
 */
#pragma GCC poison ioctl
