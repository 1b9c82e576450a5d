# QEMU's devices for the CI: the virt board only (it selects the GICv3,
# the PL011, the CoreSight model, ...): 1086 files to compile instead of
# the 1435 of the default aarch64 set of every Arm board. In 7.2 the
# M-profile helpers of target/arm link against the NVIC whatever the
# boards, so ARM_V7M stays.
CONFIG_ARM_VIRT=y
CONFIG_ARM_V7M=y
