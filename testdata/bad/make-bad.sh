#!/bin/sh
# Recreate the damaged inputs in testdata/bad/ from the good captures in testdata/.
# Offsets are computed from the good files with ../scripts/tracedat-layout.py (so this still works
# after the good files are re-recorded); the offsets for the committed files are in testdata/README.md.
set -eu
cd "$(dirname "$0")"            # -> testdata/bad
G=..                            # good files
LAYOUT="python3 $G/scripts/tracedat-layout.py"
off()  { $LAYOUT "$1" | awk -v n="$2" '$1 == n { print $2; exit }'; }   # offset of item $2 in file $1
size() { $LAYOUT "$1" | awk -v n="$2" '$1 == n { print $3; exit }'; }   # size of item $2
cut()  { head -c "$2" "$1" > "$3"; }                                     # first $2 bytes of $1 -> $3
patch() { # patch FILE OFFSET HEXBYTES : overwrite bytes in place
  python3 -c 'import sys; f=open(sys.argv[1],"r+b"); f.seek(int(sys.argv[2])); f.write(bytes.fromhex(sys.argv[3]))' "$1" "$2" "$3"; }

V7=$G/markers.dat        # smallest good v7 (zstd) file
V7DATA=$G/clock-mono.dat # small v7 (zstd) file with a few KB of data per CPU
V6=$G/v6.dat             # the (only single-buffer) v6 file

# 0 bytes
: > empty.dat
# plain text
printf 'This is not a trace.dat file.\nIt is plain text, 3 lines long,\nwith no magic at all.\n' > not-a-trace.dat
# first magic byte 0x17 -> 0x18 (v7 file)
cp $V7 bad-magic.dat; patch bad-magic.dat 0 18
# version string "7\0" at offset 10 replaced by "99\0" (one byte inserted; rest of the file shifted by 1)
{ head -c 10 $V7; printf '99\0'; tail -c +13 $V7; } > bad-version.dat
# v6 file cut in the middle of the header_event text (inside the header sections)
o=$(off $V6 header_event_text); s=$(size $V6 header_event_text)
cut $V6 $((o + s / 2)) truncated-header.dat
# v7 file cut in the middle of the compressed "ftrace events" section (id 17); the options
# section that the file header points to is beyond the end
o=$(off $V7 'section[17]'); s=$(size $V7 'section[17]')
cut $V7 $((o + s / 2)) truncated-header-v7.dat
# v7 zstd file cut in the middle of the CPU 1 flyrecord data (CPU 0 data complete; the trailing
# options section that holds the BUFFER option, and the strings section, are lost)
o=$(off $V7DATA 'buffer[]_cpu1_data'); s=$(size $V7DATA 'buffer[]_cpu1_data')
cut $V7DATA $((o + s / 2)) truncated-v7-data.dat
# v6 file cut in the middle of the CPU 0 data (CPU 1 data missing entirely)
o=$(off $V6 cpu0_data); s=$(size $V6 cpu0_data)
cut $V6 $((o + s / 2)) truncated-v6-data.dat
# v6: kallsyms size field (u32) set to 0xffffffff
cp $V6 lying-size.dat; patch lying-size.dat $(off $V6 kallsyms_size) ffffffff
# v7: size field (u64) in the section header of the kallsyms section (id 19) set to 0x7fffffffffffffff
cp $V7 lying-size-v7.dat; patch lying-size-v7.dat $(off $V7 'section[19]_size_field') ffffffffffffff7f
# v7: compressed-size field (first u32 of the compression header, right after the 16-byte section
# header) of the kallsyms section (id 19) set to 0x7fffffff
cp $V7 lying-csize-v7.dat; patch lying-csize-v7.dat $(( $(off $V7 'section[19]') + 16 )) ffffff7f
# v6: CPU count (u32 after the command lines) set to 0x7fffffff
cp $V6 bad-cpu-count.dat; patch bad-cpu-count.dat $(off $V6 cpus) ffffff7f
# v7: value of the CPUCOUNT option (id 8, u32) set to 0x7fffffff
cp $V7 bad-cpu-count-v7.dat; patch bad-cpu-count-v7.dat $(off $V7 cpucount_value) ffffff7f
# v7: CPU count inside the BUFFER option (id 3) of the top buffer set to 0x7fffffff
cp $V7 bad-buffer-cpus-v7.dat; patch bad-buffer-cpus-v7.dat $(off $V7 'buffer[]_cpus') ffffff7f
# Found by mutation testing (a heap over-read in libtraceevent's printk-format parser on a
# printk line with no usable format): bytes of v6-two-buffers.dat zeroed or changed.  The events
# are intact, so these must convert exactly like the undamaged file (and never crash).
cp ../v6-two-buffers.dat printk-malformed-1.dat
patch printk-malformed-1.dat 89647 00; patch printk-malformed-1.dat 161009 00; patch printk-malformed-1.dat 213763 00
cp ../v6-two-buffers.dat printk-malformed-2.dat
patch printk-malformed-2.dat 106698 7f; patch printk-malformed-2.dat 211791 00
# Found by mutation testing: seven bytes of two-buffers.dat changed; the compressed event-format
# section still decompresses, into a damaged sched_switch format on which libtraceevent's format
# parser crashed (now refused by tdat's format check); a later section then fails to decompress.
cp ../two-buffers.dat format-crash.dat
patch format-crash.dat 2192 ff
patch format-crash.dat 7169 7f
patch format-crash.dat 20894 7f
patch format-crash.dat 27965 80
patch format-crash.dat 37150 ff
patch format-crash.dat 40296 80
patch format-crash.dat 53859 ff
# v6: one event format damaged in place (the sched_switch field name prev_comm -> 2rev_comm): the
# file opens, that format is refused with a warning, its events cannot be decoded, exit 1
cp $V6 bad-format-v6.dat
o=$(python3 -c 'import sys; print(open(sys.argv[1], "rb").read().index(b"field:char prev_comm[16]"))' $V6)
patch bad-format-v6.dat $((o + 11)) 32
# v6: a printk format that takes a printf width from the record ("thaw" -> "%*s "): left out
# with a warning (a binary printk through it would pad to the width the event holds), exit 1
cp $V6 printk-width.dat
o=$(python3 -c 'import sys; print(open(sys.argv[1], "rb").read().index(b"\"thaw_processes\""))' $V6)
patch printk-width.dat $((o + 1)) 252a7320
# Event formats that make libtraceevent 1.7 (and trace-cmd report) read outside the record
# (SIGSEGV or gigabytes of output): tdat prints those events without their print format and
# says so, exit 1 (only the text format prints through them: they are in print/).  Made from
# v6.dat by rewrite-format.py.
RW="python3 rewrite-format.py $V6"; mkdir -p print
$RW print/print-hex-length.dat sched_switch 'print fmt: .*' 'print fmt: "%s", __print_hex(REC->prev_comm, REC->prev_pid * 100000)'
$RW print/print-array-length.dat sched_switch 'print fmt: .*' 'print fmt: "%s", __print_array(REC->prev_comm, REC->prev_pid * 100000, 4)'
$RW print/field-past-record.dat sched_switch 'prev_comm\[16\];\toffset:8;' 'prev_comm[16];\toffset:60000000;'
$RW print/helper-wild-pointer.dat softirq_entry 'print fmt: .*' 'print fmt: "%d", __le16_to_cpup(REC->vec)'
# a division by a field that is 0 in some records (SIGFPE when printed)
$RW print/division-by-field.dat sched_switch 'print fmt: .*' 'print fmt: "%d", REC->next_pid / REC->prev_pid'
# an array index that lands 2^31 bytes or more past the record (libtraceevent's bound check adds in int)
$RW print/index-by-field.dat hrtimer_start 'print fmt: .*' 'print fmt: "%llx", REC->hrtimer[REC->expires]'
# a printf width taken from a field: lines padded to gigabytes, or a negative width (wrong argument printed)
$RW print/width-by-field.dat sched_switch 'print fmt: .*' 'print fmt: "%*s|", REC->prev_pid * 1000000, REC->prev_comm'
# the same for numbers, whose fields libtraceevent prints through their conversion even
# when printing fields only: tdat prints a refused record's fields raw
$RW print/width-on-number.dat sched_switch 'print fmt: .*' 'print fmt: "%*d|", REC->prev_pid * 1000000, REC->next_pid'
$RW print/width-divides.dat sched_switch 'print fmt: .*' 'print fmt: "%*d|", 8 / REC->prev_pid, REC->next_pid'
$RW print/wide-literal.dat sched_switch 'print fmt: .*' 'print fmt: "%99999999d|", REC->next_pid'
# every format's common_pid far outside the record: refused (libtraceevent reads every pid there)
$RW common-pid-offset.dat '*' 'common_pid;\toffset:4;' 'common_pid;\toffset:60000000;'
ls -l
