"""tools/elfsyms.py - the functions of an ELF file, for tools/ipccost.py
and tools/samplecost.py (imported from this directory)."""
import subprocess


def symbols(elf):
    """Sorted (address, name) of elf's functions (nm -n: t, T, w, W), less
    NASM's macro-local labels ("..@N.name"), which belong to the function
    they are in."""
    out = subprocess.run(["nm", "-n", elf], capture_output=True, text=True,
                         check=True).stdout
    syms = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "tTwW" and not f[2].startswith("..@"):
            syms.append((int(f[0], 16), f[2]))
    return syms
