M=/sys/kernel/tracing/trace_marker
printf 'B|%d|outer slice' $$ > $M
printf 'B|%d|inner "q" \\ slice' $$ > $M
printf 'C|%d|queue depth|42' $$ > $M
printf 'C|%d|queue depth|-3' $$ > $M
printf 'E|%d' $$ > $M
printf 'S|%d|async op|7' $$ > $M
printf 'F|%d|async op|7' $$ > $M
printf 'E' > $M
printf 'B|%d|utf8 \303\251 and bad \377 byte' $$ > $M
printf 'E|%d' $$ > $M
printf 'not atrace' > $M
printf 'C|%d|bad counter|1.5' $$ > $M
