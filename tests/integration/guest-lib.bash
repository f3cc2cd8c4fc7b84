# Sourced by the scripts that boot the tiny long-mode test guests
# (tests/integration/*.S, sharing guest64-head.S and guest64-tail.S).

# build_guest DIR NAME SOURCE [CPP-FLAGS...]: DIR/NAME.elf, linked at 1 MiB
build_guest() {
	local dir=$1 name=$2 src=$3
	shift 3
	gcc "$@" -Itests/integration -c "$src" -o "$dir/$name.o" &&
		ld -m elf_x86_64 -Ttext 0x100000 -N -e start --no-warn-rwx-segments \
			-o "$dir/$name.elf" "$dir/$name.o"
}
