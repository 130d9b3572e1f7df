#!/usr/bin/env bash
# ccbench history in a PostgreSQL server (docs/history.md "PostgreSQL"), on a
# real server this script starts (initdb and pg_ctl in a temporary folder, a
# Unix socket there only; as root the server runs as user postgres):
#   history_postgres.sh CCBENCH FIXTURES same     the same runs in SQLite and PostgreSQL: show, changes,
#                                                 verdicts, stragglers, export print the same; copy both
#                                                 ways; the password never printed
#   history_postgres.sh CCBENCH FIXTURES writers  32 writers at once, disjoint and overlapping runs:
#                                                 every run once; a reader who may only read
#   history_postgres.sh CCBENCH FIXTURES runs     a sweep's --history and accept's --history with a
#                                                 `baseline: history` gate read from the server
#   history_postgres.sh CCBENCH FIXTURES faults   a writer lock held past --wait, the server gone
#                                                 mid-add (exit 5, nothing half-written), a schema
#                                                 ccbench did not make (exit 2, untouched)
# Exit 77 (skipped, with the reason) where no server can be started here.
set -uo pipefail
ccbench=$1 fx=$2 case=$3
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
bindir=$(pg_config --bindir 2>/dev/null)
[ -x "$bindir/initdb" ] || bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bindir/initdb" ] && [ -x "$bindir/pg_ctl" ] || skip "no initdb/pg_ctl (Debian: apt-get install postgresql)"
out=$(mktemp -d /tmp/ccbench-pg.XXXXXX)
as_server=()
if [ "$(id -u)" = 0 ]; then
  id postgres > /dev/null 2>&1 || skip "running as root and there is no user postgres to run the server as"
  chown postgres "$out"
  as_server=(runuser -u postgres --)
fi
server() { "${as_server[@]}" "$bindir/pg_ctl" -D "$out/data" -o "-k $out -h ''" -l "$out/server.log" -w "$@" > /dev/null; }
trap 'server stop -m immediate 2>/dev/null; rm -rf "$out"' EXIT
"${as_server[@]}" "$bindir/initdb" -D "$out/data" -A trust -U ccbench > "$out/initdb.log" 2>&1 ||
  skip "initdb failed: $(tail -1 "$out/initdb.log")"
server start || skip "the server did not start: $(tail -3 "$out/server.log" 2>/dev/null)"
# A password in the URL (trust ignores it): it must never be printed.
url="postgresql://ccbench:s3cret-pw@/postgres?host=$out"
if "$ccbench" history show --db "$url" 2>&1 | grep -q 'built without libpq'; then skip "ccbench built without libpq"; fi
psql_do() { psql -X -q -v ON_ERROR_STOP=1 "postgresql://ccbench@/${2:-postgres}?host=$out" -c "$1"; }
work=$(mktemp -d /tmp/ccbench-pg-work.XXXXXX)
trap 'server stop -m immediate 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$out" "$work"' EXIT

nccl_log() { python3 "$(dirname "$0")/nccl_log.py" "$@"; }  # SRC HOST FACTOR SEED > FILE
no_password() { ! grep -rq 's3cret' "$@" || fail "the password was printed ($(grep -rl 's3cret' "$@"))"; }

case "$case" in
  same)
    mkdir -p "$work/runs"
    for i in 1 2 3 4 5 6 7 8; do  # a series with a step: changes finds it
      f=1; [ $i -gt 4 ] && f=1.5
      nccl_log "$fx/compare/nccl-tests/cloud-all_reduce.log" vm-a1 $f $i > "$work/runs/r$i.log"
      touch -d "2026-01-0$i" "$work/runs/r$i.log"
    done
    for db in "$work/h.db" "$url"; do
      "$ccbench" history add --db "$db" "$work/runs" "$fx/compare/nccl-tests" "$fx/compare/osu" "$fx/compare/inspector" "$fx/history/accept-lead" > "$work/add.txt" 2>&1 ||
        { cat "$work/add.txt"; fail "add to $db"; }
    done
    grep -q "history: postgresql://ccbench@/postgres?host=$out: " "$work/add.txt" || { cat "$work/add.txt"; fail "the URL named"; }
    same() {  # LABEL ARGS...: the same output from both databases, the database's name aside
      "$ccbench" history "$@" --db "$work/h.db" > "$work/sqlite.txt" 2>&1; local a=$?
      "$ccbench" history "$@" --db "$url" > "$work/pg.txt" 2>&1; local b=$?
      [ $a = $b ] || fail "history $*: exit $a from SQLite, $b from PostgreSQL"
      sed -i "s#$work/h.db#DB#g" "$work/sqlite.txt"
      sed -i "s#postgresql://ccbench@/postgres?host=$out#DB#g" "$work/pg.txt"
      diff "$work/sqlite.txt" "$work/pg.txt" > "$work/diff.txt" || { head -20 "$work/diff.txt"; fail "history $*: not the same"; }
    }
    same show
    same show --csv --collective all_reduce
    same changes --json
    same changes
    same verdicts
    grep -q "rejected   lead" "$work/pg.txt" || fail "the verdict kept"
    same stragglers
    grep -q 'regression' "$work/pg.txt" 2>/dev/null || true
    "$ccbench" history changes --db "$url" > "$work/changes.txt"; [ $? = 1 ] || { cat "$work/changes.txt"; fail "changes: the step"; }
    "$ccbench" history export --db "$url" --prom "$work/pg.prom" > /dev/null || fail "export from PostgreSQL"
    "$ccbench" history export --db "$work/h.db" --prom "$work/sqlite.prom" > /dev/null || fail "export from SQLite"
    diff <(grep -v '^#' "$work/sqlite.prom") <(grep -v '^#' "$work/pg.prom") > /dev/null || fail "export --prom differs"
    # copy: PostgreSQL -> a new SQLite file -> a new PostgreSQL database; the same runs everywhere
    "$ccbench" history copy "$url" "$work/copy.db" > "$work/copy1.txt" 2>&1 || { cat "$work/copy1.txt"; fail "copy to SQLite"; }
    psql_do "CREATE DATABASE copied" || fail "createdb"
    url2="postgresql://ccbench:s3cret-pw@/copied?host=$out"
    "$ccbench" history copy "$work/copy.db" "$url2" > "$work/copy2.txt" 2>&1 || { cat "$work/copy2.txt"; fail "copy to PostgreSQL"; }
    "$ccbench" history copy "$work/copy.db" "$url2" > "$work/copy3.txt" 2>&1 || fail "copy again"
    grep -q ': 0 runs added (0 values), [1-9][0-9]* already there' "$work/copy3.txt" || { cat "$work/copy3.txt"; fail "copy again added runs"; }
    for db in "$work/copy.db" "$url2"; do  # run ids are the target's own: left out
      "$ccbench" history show --db "$db" | sed -E 's/^([0-9T:.Z-]+) +[0-9]+ /\1 /' > "$work/c.txt" || fail "show $db"
      "$ccbench" history show --db "$work/h.db" | sed -E 's/^([0-9T:.Z-]+) +[0-9]+ /\1 /' > "$work/h.txt"
      diff "$work/h.txt" "$work/c.txt" > "$work/cdiff.txt" || { head "$work/cdiff.txt"; fail "the copy in $db differs"; }
    done
    "$ccbench" history copy "$url" "$url" > "$work/self.txt" 2>&1; [ $? = 2 ] || fail "copy onto itself"
    # Another spelling of the same database: refused at once, not copied onto itself.
    "$ccbench" history copy "$url" "postgresql:///postgres?host=$out&user=ccbench" > "$work/self2.txt" 2>&1
    [ $? = 2 ] && grep -q "FROM and TO are the same database" "$work/self2.txt" || { cat "$work/self2.txt"; fail "copy onto another spelling of itself"; }
    # A label and a host that are not UTF-8 (PostgreSQL refuses such text): both stores keep the same repaired text.
    sed 's/vm-a1/vm-\xff/g' "$work/runs/r1.log" > "$work/latin1.log"
    for db in "$work/h.db" "$url"; do
      "$ccbench" history add --db "$db" --label $'caf\xe9' "$work/latin1.log" > "$work/l.txt" 2>&1 || { cat "$work/l.txt"; fail "a non-UTF-8 label into $db"; }
    done
    same show --csv --node $'vm-\xef\xbf\xbd'
    grep -q $'vm-\xef\xbf\xbd' "$work/pg.txt" || fail "the repaired host kept"
    # Each point's busbw limit (schema 5): the genuine 8 x H100 log's NVLS limit, 700 GB/s.
    "$ccbench" history show --db "$url" --csv > "$work/limits.txt" &&
      grep -q '^all_reduce,float,sum,auto,device,8,1,0,134217728,dgx-a01,NVIDIA H100 80GB HBM3,.*,700,0\.65' \
        "$work/limits.txt" || fail "show --csv: the H100 log's limit and share"
    # A schema 4 database (before the limits): read as it is, migrated by the next writer.
    psql_do "CREATE DATABASE old" || fail "createdb old"
    old="postgresql://ccbench@/old?host=$out"
    "$ccbench" history add --db "$old" "$work/runs/r1.log" > /dev/null || fail "add to old"
    psql_do "ALTER TABLE ccbench.points DROP COLUMN busbw_limit_gbps; UPDATE ccbench.meta SET version = 4" old ||
      fail "make old a schema 4 database"
    "$ccbench" history show --db "$old" --csv > "$work/old.txt" || { cat "$work/old.txt"; fail "show from schema 4"; }
    grep -q ',-,-$' "$work/old.txt" || fail "schema 4: no limits, shown as -"
    "$ccbench" history add --db "$old" "$fx/compare/nccl-tests/bare-metal-all_reduce.log" > "$work/old-add.txt" 2>&1 ||
      { cat "$work/old-add.txt"; fail "add to schema 4"; }
    [ "$(psql -X -At "$old" -c 'SELECT version FROM ccbench.meta')" = 5 ] || fail "schema 4 migrated to 5"
    "$ccbench" history show --db "$old" --csv > "$work/old.txt" && grep -q ',700,0\.65' "$work/old.txt" ||
      fail "the migrated database keeps limits"
    no_password "$work"
    ;;
  writers)
    mkdir -p "$work/own"
    for i in $(seq 1 32); do nccl_log "$fx/compare/nccl-tests/cloud-all_reduce.log" "vm-w$i" 1 "$i" > "$work/own/w$i.log"; done
    pids=()
    for i in $(seq 1 32); do  # its own run, and the 8 fixtures every writer adds
      "$ccbench" history add --db "$url" --wait 120 "$work/own/w$i.log" "$fx/compare/nccl-tests" > "$work/w$i.txt" 2>&1 &
      pids+=($!)
    done
    bad=0
    for p in "${pids[@]}"; do wait "$p" || bad=$((bad + 1)); done
    [ $bad = 0 ] || { cat "$work"/w*.txt | grep -v ': run ' | head; fail "$bad of 32 writers failed"; }
    fixtures=$(ls "$fx/compare/nccl-tests" | wc -l)
    "$ccbench" history add --db "$url" "$work/own" "$fx/compare/nccl-tests" > "$work/again.txt" 2>&1 || fail "add again"
    tail -1 "$work/again.txt" | grep -Eq ': 0 added, [0-9]+ already there, [0-9]+ skipped; it holds [0-9]+ runs' ||
      { tail -1 "$work/again.txt"; fail "every run once"; }
    held=$(tail -1 "$work/again.txt" | grep -oE 'it holds [0-9]+' | grep -oE '[0-9]+')
    dup=$(psql -X -At "postgresql://ccbench@/postgres?host=$out" -c \
      "SELECT count(*) - count(DISTINCT content_sha256) FROM ccbench.runs")
    half=$(psql -X -At "postgresql://ccbench@/postgres?host=$out" -c \
      "SELECT count(*) FROM ccbench.runs r WHERE NOT EXISTS (SELECT 1 FROM ccbench.points WHERE run_id = r.id)")
    [ "$dup" = 0 ] && [ "$half" = 0 ] || fail "duplicated runs $dup, runs without points $half"
    own=$(grep -l 'w[0-9]*.log: run ' "$work"/w*.txt | wc -l)
    [ "$own" = 32 ] || fail "only $own of 32 writers' own runs added"
    [ "$held" -ge 33 ] || fail "it holds $held runs (32 + the fixtures)"
    # A reader who may only read: it reads; it cannot add (exit 5)
    psql_do "CREATE ROLE reader LOGIN; GRANT USAGE ON SCHEMA ccbench TO reader; GRANT SELECT ON ALL TABLES IN SCHEMA ccbench TO reader" ||
      fail "create the reader"
    reader="postgresql://reader@/postgres?host=$out"
    "$ccbench" history show --db "$reader" > "$work/r.txt" 2>&1 || { cat "$work/r.txt"; fail "a reader reads"; }
    "$ccbench" history changes --db "$reader" > /dev/null 2>&1; [ $? -le 1 ] || fail "a reader runs changes"
    nccl_log "$fx/compare/nccl-tests/cloud-all_reduce.log" vm-r 1 99 > "$work/r.log"
    "$ccbench" history add --db "$reader" "$work/r.log" > "$work/radd.txt" 2>&1; rc=$?
    [ $rc = 5 ] && grep -q 'cannot write' "$work/radd.txt" || { cat "$work/radd.txt"; fail "a reader adding: exit $rc, not 5"; }
    no_password "$work"
    ;;
  faults)
    nccl_log "$fx/compare/nccl-tests/cloud-all_reduce.log" vm-f 1 1 > "$work/one.log"
    nccl_log "$fx/compare/nccl-tests/cloud-all_reduce.log" vm-f 1 2 > "$work/two.log"
    "$ccbench" history add --db "$url" "$work/one.log" > /dev/null || fail "the first add"
    lock=$(printf '%d' 0x63636268)
    hold() {  # holds the writer lock for S seconds, in the background
      psql -X -q "postgresql://ccbench@/postgres?host=$out" \
        -c "BEGIN" -c "SELECT pg_advisory_xact_lock($lock)" -c "SELECT pg_sleep($1)" -c "COMMIT" > /dev/null 2>&1 &
      sleep 1
    }
    hold 20; holder=$!
    "$ccbench" history add --db "$url" --wait 1 "$work/two.log" > "$work/locked.txt" 2>&1; rc=$?
    [ $rc = 5 ] && grep -q 'locked by another writer past --wait' "$work/locked.txt" ||
      { cat "$work/locked.txt"; fail "a lock held past --wait: exit $rc"; }
    kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null
    # The server goes away while an add waits for the lock: exit 5, nothing of it there afterwards.
    hold 30; holder=$!
    "$ccbench" history add --db "$url" --wait 60 "$work/two.log" > "$work/gone.txt" 2>&1 &
    adder=$!
    sleep 1
    server stop -m immediate
    wait "$adder"; rc=$?
    wait "$holder" 2>/dev/null
    [ $rc = 5 ] && grep -q 'the server went away' "$work/gone.txt" || { cat "$work/gone.txt"; fail "server gone: exit $rc"; }
    server start || fail "restart"
    "$ccbench" history show --db "$url" > "$work/after.txt" || fail "show after the restart"
    grep -c '^20' "$work/after.txt" | grep -qx "$(grep -c '^20' "$work/after.txt")" || true
    runs=$("$ccbench" history add --db "$url" "$work/one.log" | grep -oE 'it holds [0-9]+ run' | grep -oE '[0-9]+')
    [ "$runs" = 1 ] || fail "after the server went away it holds $runs runs, not 1"
    # A schema named ccbench that ccbench did not make: refused, untouched.
    psql_do "CREATE DATABASE other" && psql_do "CREATE SCHEMA ccbench; CREATE TABLE ccbench.runs(x int)" other ||
      fail "make the other database"
    other="postgresql://ccbench@/other?host=$out"
    "$ccbench" history add --db "$other" "$work/two.log" > "$work/other.txt" 2>&1; rc=$?
    [ $rc = 2 ] && grep -q 'that ccbench did not make' "$work/other.txt" || { cat "$work/other.txt"; fail "a foreign schema: exit $rc"; }
    [ "$(psql -X -At "$other" -c "SELECT count(*) FROM pg_tables WHERE schemaname = 'ccbench'")" = 1 ] ||
      fail "the foreign schema was changed"
    # Issue 73: a server that stops answering (SIGSTOP on the postmaster)
    # ends add within --wait + 10 s + a margin, exit 5 (show, changes and a
    # sweep's --history open the server the same way).
    pid=$(head -1 "$out/data/postmaster.pid")
    kill -STOP "$pid"
    start=$SECONDS
    timeout 60 "$ccbench" history add --db "$url" --wait 2 "$work/two.log" > "$work/stopped.txt" 2>&1
    rc=$? took=$((SECONDS - start))
    kill -CONT "$pid"
    [ $rc = 5 ] && [ $took -le 30 ] && grep -q 'cannot connect\|did not answer within' "$work/stopped.txt" ||
      { cat "$work/stopped.txt"; fail "history add on a stopped server: exit $rc after $took s"; }
    # Passwords in every form libpq reads: never in a message.
    for form in "postgresql://u:s3cret?x@/db?host=$out/nonexistent" "postgresql://u:s3cret#x@/db?host=$out/nonexistent" \
                "postgresql:///db?host=$out/nonexistent&pass%77ord=s3cret" "postgresql://u:s3cret/x@$out/db" \
                "postgresql://u:s3%zzcret@/db" "host=$out/nonexistent password=s3cret dbname=x" "postgresql:/u:s3cret@db"; do
      "$ccbench" history show --db "$form" > "$work/form.txt" 2>&1; rc=$?
      { [ $rc = 2 ] || [ $rc = 5 ]; } && ! grep -q s3cret "$work/form.txt" || { cat "$work/form.txt"; fail "$form: exit $rc"; }
    done
    "$ccbench" history show --db "postgresql://ccbench@/postgres?host=$out/nonexistent" > "$work/nohost.txt" 2>&1; rc=$?
    # One line: libpq's second line joined with "; ", no tab or newline left.
    [ $rc = 5 ] && grep -q 'cannot connect (.*; Is the server running' "$work/nohost.txt" && [ "$(wc -l < "$work/nohost.txt")" = 1 ] &&
      ! grep -qP '\t' "$work/nohost.txt" || { cat "$work/nohost.txt"; fail "no server: exit $rc"; }
    no_password "$work"
    ;;
  runs)
    # A sweep's --history and accept's --history with a `baseline: history` gate, into the server.
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    mpirun -np 3 "$ccbench" all_reduce -b 1K -e 4K -n 5 -w 1 --history "$url" > "$work/sweep.txt" 2> "$work/sweep.err" ||
      { cat "$work/sweep.err"; fail "a sweep with --history URL"; }
    grep -q "^ccbench: --history postgresql://ccbench@/postgres?host=$out: added as run 1" "$work/sweep.err" ||
      { cat "$work/sweep.err"; fail "the sweep's run added"; }
    cp "$fx/accept/own-past.yaml" "$work/own.yaml"
    mpirun -np 2 "$ccbench" accept "$work/own.yaml" --out "$work/a1" --color never --history "$url" > "$work/a1.log" 2> "$work/a1.err" ||
      { cat "$work/a1.log" "$work/a1.err"; fail "the first accept (no past)"; }
    grep -q 'history gate not judged: fewer than 3 past runs' "$work/a1/verdict.json" || fail "the first run: no note"
    for day in 1 2 3; do  # a past 1000x faster than this host
      python3 "$(dirname "$0")/scaled_past.py" "$work"/a1/raw/node/*.jsonl 1000 "$day" > "$work/past-$day.jsonl"
    done
    "$ccbench" history add --db "$url" "$work"/past-*.jsonl > /dev/null || fail "add the past"
    mpirun -np 2 "$ccbench" accept "$work/own.yaml" --out "$work/a2" --color never --history "$url" > "$work/a2.log" 2>&1
    rc=$?
    [ $rc = 1 ] && grep -q "x the median of this group's last 4 runs in the history" "$work/a2/verdict.md" ||
      { cat "$work/a2.log"; fail "a past 1000x faster in PostgreSQL: exit $rc, expected 1 (rejected)"; }
    "$ccbench" history verdicts --db "$url" --csv > "$work/v.csv" || fail "history verdicts"
    [ "$(grep -c ',rejected,node,' "$work/v.csv")" = 1 ] && [ "$(grep -c ',accepted,node,' "$work/v.csv")" = 1 ] ||
      { cat "$work/v.csv"; fail "the two verdicts kept"; }
    no_password "$work"
    ;;
  *) echo "usage: history_postgres.sh CCBENCH FIXTURES same|writers|faults|runs" >&2; exit 2 ;;
esac
echo "history_postgres $case: ok"
