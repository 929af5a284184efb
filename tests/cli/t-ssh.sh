#!/usr/bin/env bash
# t-ssh.sh: the cluster recipe over real ssh.  An sshd of our own (Debian's
# openssh-server) listens on 127.0.0.1 on a free port, with a host key and an
# authorized user key made here in a temporary folder; its sessions start in
# a folder of their own, the "remote" side (ForceCommand), with tdat on the
# PATH.  doc/examples/tdat-archive.sh -S '1/ssh -F CONFIG tdat-remote'
# converts an archive through parallel's --transferfile, --return and
# --cleanup; the dataset is byte for byte the one of a local run (the joblog
# aside), and nothing is left on the remote side.  sshd is stopped at the
# end.  A SKIP line says why when sshd cannot start.
. "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/cli/lib.sh"
SSHD=${TDAT_SSHD:-/usr/sbin/sshd}
ARCHIVE=$TOP_SRCDIR/doc/examples/tdat-archive.sh
for tool in ssh ssh-keygen parallel rsync python3; do
	command -v $tool >/dev/null || skip_all "$tool is not installed (Debian: openssh-client, parallel, rsync, python3)"
done
[[ -x $SSHD ]] || skip_all "no sshd at $SSHD (Debian: openssh-server)"

D=$T_TMP/ssh
REMOTE=$D/remote
mkdir -p "$D" "$REMOTE" && chmod 700 "$D"
ssh-keygen -q -t ed25519 -N '' -f "$D/host_key" -C tdat-test-host
ssh-keygen -q -t ed25519 -N '' -f "$D/id" -C tdat-test-user
cp "$D/id.pub" "$D/authorized_keys"

# a free port: the kernel's pick for a socket bound to port 0
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

SSHD_PID=
stop_sshd() {
	[[ -n $SSHD_PID ]] && kill "$SSHD_PID" 2>/dev/null && wait "$SSHD_PID" 2>/dev/null
	SSHD_PID=
}
trap 'stop_sshd; _t_at_exit' EXIT

# start_sshd PORT: sshd in the foreground of a background job; 0 once it answers
start_sshd() {
	cat >"$D/sshd_config" <<EOF
Port $1
ListenAddress 127.0.0.1
HostKey $D/host_key
PidFile $D/sshd.pid
AuthorizedKeysFile $D/authorized_keys
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
SetEnv PATH=$BIN:/usr/local/bin:/usr/bin:/bin HOME=$REMOTE
ForceCommand cd $REMOTE && exec /bin/sh -c "\$SSH_ORIGINAL_COMMAND"
LogLevel INFO
EOF
	cat >"$D/ssh_config" <<EOF
Host tdat-remote
	HostName 127.0.0.1
	Port $1
	User $(id -un)
	IdentityFile $D/id
	IdentitiesOnly yes
	UserKnownHostsFile $D/known_hosts
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking accept-new
	BatchMode yes
	LogLevel ERROR
EOF
	# as root, sshd wants its privilege separation folder (the package's service makes it)
	[[ $(id -u) != 0 || -d /run/sshd ]] || mkdir -p -m 755 /run/sshd
	"$SSHD" -D -e -f "$D/sshd_config" 2>"$D/sshd.log" &
	SSHD_PID=$!
	for _ in $(seq 50); do
		ssh -F "$D/ssh_config" tdat-remote true 2>/dev/null && return 0
		kill -0 "$SSHD_PID" 2>/dev/null || break
		sleep 0.1
	done
	stop_sshd
	return 1
}

started=
for _ in 1 2 3; do
	start_sshd "$(free_port)" && { started=1; break; }
done
[[ -n $started ]] || skip_all "sshd could not start on 127.0.0.1: $(head -n 3 "$D/sshd.log" | tr '\n' ' ')"

t_run "ssh runs a command on the remote side" -- ssh -F "$D/ssh_config" tdat-remote 'pwd; command -v tdat-convert'
is "in its own folder, with tdat on the PATH" "$(cat "$T_OUT")" "$(printf '%s\n%s' "$REMOTE" "$BIN/tdat-convert")"

IN=$T_TMP/in
mkdir -p "$IN/a/b" "$IN/c"
cp testdata/v7-zstd.dat "$IN/a/b/"
cp testdata/chunks.dat "$IN/c/"
gzip -c testdata/markers.dat >"$IN/markers.dat.gz"
LOGIN="1/ssh -F $D/ssh_config tdat-remote"
for f in parquet sqlite; do
	t_exit "-f $f, locally" 0 -- "$ARCHIVE" -f $f -j 2 "$IN" "$T_TMP/local-$f"
	t_exit "-f $f, over ssh (-S '$LOGIN')" 0 -- "$ARCHIVE" -f $f -S "$LOGIN" "$IN" "$T_TMP/ssh-$f"
	rm -f "$T_TMP"/{local,ssh}-$f/.tdat-archive.joblog
	t_assert "-f $f: the dataset is byte for byte the local run's ($(cd "$T_TMP/ssh-$f" && find . -type f | wc -l) files)" \
		diff -r "$T_TMP/local-$f" "$T_TMP/ssh-$f"
	((T_LAST_OK)) || diag "$(diff -r "$T_TMP/local-$f" "$T_TMP/ssh-$f" 2>&1 | head -n 5)"
	is "-f $f: three captures" "$(cd "$T_TMP/ssh-$f" && ls | tr '\n' ' ')" \
		"capture=a__b__v7-zstd capture=c__chunks capture=markers "
	is "-f $f: nothing is left on the remote side" "$(cd "$REMOTE" && find . -mindepth 1 | head -n 5)" ""
done
n=$(grep -c 'Accepted publickey' "$D/sshd.log")
t_assert "the captures went through our sshd ($n logins)" test "$n" -ge 12
is "and it logged no error" "$(grep -iE 'error|fatal|refused|invalid' "$D/sshd.log" | head -n 3)" ""

# a capture that fails over ssh: named, nothing of it comes back or stays
head -c 100000 testdata/chunks.dat >"$IN/c/cut.dat"
t_exit "a damaged capture over ssh: exit 1" 1 -- "$ARCHIVE" -f parquet -S "$LOGIN" "$IN" "$T_TMP/ssh-parquet"
t_stderr_match "it is named" '^  capture=c__cut$'
t_assert "nothing of it came back" test ! -e "$T_TMP/ssh-parquet/capture=c__cut"
is "and nothing is left on the remote side" "$(cd "$REMOTE" && find . -mindepth 1 | head -n 5)" ""
stop_sshd
t_assert "sshd is stopped" test ! -e "/proc/$(cat "$D/sshd.pid" 2>/dev/null || echo 0)/status"
done_testing
