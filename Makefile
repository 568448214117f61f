# pressmark: one binary, C11 with warnings as errors, gcc or clang
# (make CC=clang). Objects go to a build directory, never beside the
# sources: B=build for the plain build, build/check for ASan+UBSan,
# build/tsan for ThreadSanitizer.
CC      ?= cc
B       ?= build
PKGS    := sqlite3 libcurl zlib jansson inih libarchive yaml-0.1
# CFLAGS, CPPFLAGS and LDFLAGS are yours to set (make CFLAGS=-O0; the Debian
# package passes dpkg-buildflags' hardening); what the code needs is in PM_CFLAGS.
CFLAGS  ?= -O2 -g
# A warning flag goes in only when this compiler knows it, so gcc-only
# flags do not break clang and the other way round.
cc-flag = $(shell $(CC) -Werror $(1) -E -x c /dev/null >/dev/null 2>&1 && echo $(1))
# -Wno-format-truncation: snprintf into fixed buffers is how this code
# truncates on purpose (paths, notes); every such call is bounded.
WARN    := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes -Wvla \
           $(call cc-flag,-Wno-format-truncation)
PM_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) -I. -I$(B)/gen $(shell pkg-config --cflags $(PKGS))
# libcurl and libarchive are not linked, only their headers used: each is
# opened on first use (lib/curl_lib.c, lib/archive_lib.c), as their
# dependencies (~50 libraries) cost every start ~20 ms of CPU to map and
# relocate, and few commands need them. dlopen is in libc (glibc 2.34).
LINK_PKGS := $(filter-out libcurl libarchive,$(PKGS))
LDLIBS  += $(shell pkg-config --libs $(LINK_PKGS)) -lgsl -lgslcblas -lz -lm -pthread

# The folders in the order their includes may point: each may include
# itself and those before it on its line in layering.txt (make layering).
SRC_DIRS := lib figures stats store pressure collectors workloads workloads/chat harness kernels labs reports export experiment bisect cmd
LIB_SRC  := $(filter-out cmd/main.c,$(foreach d,$(SRC_DIRS),$(wildcard $(d)/*.c)))
LIB_OBJ  := $(LIB_SRC:%.c=$(B)/%.o)
UNIT_SRC := $(wildcard tests/unit_*.c)
UNIT_BIN := $(UNIT_SRC:%.c=$(B)/%.t)
# Fuzz harnesses (fuzz/fuzz_NAME.c): replay drivers for the committed
# corpora in every build, libFuzzer binaries for make fuzz.
FUZZERS  := $(patsubst fuzz/fuzz_%.c,%,$(wildcard fuzz/fuzz_*.c))
REPLAY_BIN := $(FUZZERS:%=$(B)/fuzz/%.replay) $(B)/fuzz/writers-emit

# The version: git describe in a clone, else what the package says.
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || cat VERSION 2>/dev/null || echo unknown)

.PHONY: v2-host-check lava-check all test ci-test test-quick test-slow check check-build tsan bench clean fresh-root layering fuzz fuzz-build man install uninstall FORCE
all: pressmark $(UNIT_BIN) $(REPLAY_BIN) $(B)/tests/stats_tool

# Made anew each time: ar only adds and replaces, so a member of a source
# that was removed or moved would stay and clash with its new home.
$(B)/libpressmark.a: $(LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(B)/pressmark: $(B)/cmd/main.o $(B)/libpressmark.a
	$(CC) $(CFLAGS) $(PM_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The plain build's binary also stands at the top, where the README, the
# tests and the suites call it.
pressmark: $(B)/pressmark
	@if [ "$(B)" = build ]; then cp $< $@; fi

$(B)/tests/unit_%.t: tests/unit_%.c tests/tap.h $(B)/libpressmark.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(PM_CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libpressmark.a $(LDLIBS)

# tests/t47-statistics.t's numbers from pressmark's statistics, held
# against scipy's.
$(B)/tests/stats_tool: tests/stats_tool.c $(B)/libpressmark.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(PM_CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libpressmark.a $(LDLIBS)

$(B)/bench/sources_cost: bench/sources_cost.c $(B)/libpressmark.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(PM_CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libpressmark.a $(LDLIBS)
# bench/reports.sh's database, its ticks written by pressmark's own tick writer.
$(B)/bench/reports_fixture: bench/reports_fixture.c $(B)/libpressmark.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(PM_CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libpressmark.a $(LDLIBS)

# bench/samples.sh's queries, replays of a recorded run, schema 7's size.
$(B)/bench/sample_tool: bench/sample_tool.c $(B)/libpressmark.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(PM_CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libpressmark.a $(LDLIBS)
# bench/verdicts.sh's false alarms and power, judged over the fixture pool.
$(B)/bench/verdict_tool: bench/verdict_tool.c $(B)/libpressmark.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(PM_CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libpressmark.a $(LDLIBS)
# bench/changepoints.sh's nightly simulated over the fixture pool: today's gate against change points.
$(B)/bench/cp_tool: bench/cp_tool.c $(B)/libpressmark.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(PM_CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libpressmark.a $(LDLIBS)
# bench/gate.sh's nightly history gate judged over every metric it judges, on the A/A pool.
$(B)/bench/gate_tool: bench/gate_tool.c $(B)/libpressmark.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(PM_CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libpressmark.a $(LDLIBS)

# (kept, not intermediate: make deletes intermediate objects after a first
# build and, once their .d files name them, builds them again in the next,
# so a tree built once was never up to date; make v2-host-check's guest
# must find it so)
.SECONDARY: $(FUZZERS:%=$(B)/fuzz/fuzz_%.o) $(B)/fuzz/replay.o $(B)/fuzz/split.o $(B)/fuzz/writers_emit.o
$(B)/fuzz/%.replay: $(B)/fuzz/fuzz_%.o $(B)/fuzz/replay.o $(B)/fuzz/split.o $(B)/libpressmark.a
	$(CC) $(CFLAGS) $(PM_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(B)/fuzz/writers-emit: $(B)/fuzz/writers_emit.o $(B)/fuzz/split.o $(B)/libpressmark.a
	$(CC) $(CFLAGS) $(PM_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Only a changed version rebuilds version.o.
$(B)/version.txt: FORCE
	@mkdir -p $(@D); echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' > $@
$(B)/lib/version.o: $(B)/version.txt
$(B)/lib/version.o: PM_CFLAGS += -DPM_VERSION='"$(VERSION)"'

# metric_names.h: a macro per declared metric (tools/metric-names.awk), so
# code that reads a metric by name is checked by the compiler. Rewritten
# only when it changes, so editing a table rebuilds only its readers.
METRIC_DECL := $(wildcard collectors/*.c harness/*.c workloads/*.c workloads/chat/*.c figures/*.c)
# (the list of files is a prerequisite too: a file that goes takes its names)
$(B)/gen/metric-files.txt: FORCE
	@mkdir -p $(@D); echo '$(METRIC_DECL)' | cmp -s - $@ || echo '$(METRIC_DECL)' > $@
$(B)/gen/metric_names.h: tools/metric-names.awk $(METRIC_DECL) $(B)/gen/metric-files.txt
	@mkdir -p $(@D)
	@awk -f tools/metric-names.awk $(METRIC_DECL) > $@.tmp && { cmp -s $@.tmp $@ || mv $@.tmp $@; } && rm -f $@.tmp
$(LIB_OBJ) $(B)/cmd/main.o: | $(B)/gen/metric_names.h

# Header dependencies, so a changed struct rebuilds everything that uses it.
$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(PM_CFLAGS) -MMD -MP -c -o $@ $<
-include $(LIB_OBJ:.o=.d) $(B)/cmd/main.d $(wildcard $(B)/fuzz/*.d)

# prove runs the unit binaries and the shell tests alike (both speak TAP),
# outside make's environment: MAKEFLAGS would carry this make's variables
# (CFLAGS=-fsanitize=...) into the make that the build workload runs.
#
# Three lanes (prove -j3 and three "seq" rules). The tests that change
# this machine (caps, swap, knobs, tracefs, the package; every run makes a
# cgroup) run one after another, as each compares the machine before and
# after. The VM tests, t80 and t82 (LONG_FREE), run in a lane of their
# own: their kernels run in VMs with a run lock and undo journal of their
# own, they compare only what VMs leave, and they never overlap each other
# (a lock in tests/lib.sh's vm_lane). Beside both run the unit tests and
# the shell tests that touch nothing outside their own directory
# (FREE_TESTS; t18 builds its package there and takes the machine lane's
# lock to install it). Every test leaves /tmp as it found it: a
# pressmark-test directory that was not there before fails the target.
# --timer gives each file's time. (The tests that measure the whole
# machine, its memory or its speed, wait for t80's VMs to end: they come
# last, when those are most likely done; see quiet_machine in
# tests/lib.sh.)
QUIET_TESTS   := tests/t10-record.t tests/t19-nightly.t tests/t21-survive.t tests/t25-reclaim.t tests/t30-chat.t
SHELL_TESTS   := $(filter-out $(QUIET_TESTS),$(wildcard tests/t*.t)) $(QUIET_TESTS)
FREE_TESTS    := $(filter $(SHELL_TESTS),tests/t05-layering.t tests/t07-docs.t tests/t17-metrics.t tests/t43-fuzz.t \
                   tests/t45-export.t tests/t47-statistics.t tests/t48-verdicts.t tests/t49-history.t tests/t56-isolation.t \
                   tests/t80-kernels.t tests/t82-bisect.t tests/t84-lava-input.t tests/t85-lava-lab.t tests/t86-lava-store-token.t \
                   tests/t08-failures.t tests/t18-deb.t tests/t88-golden.t)
# (each lane in order, one test at a time: prove's "par" would let the
# free lane's tests take every slot first; the longest starts first)
LONG_FREE     := tests/t80-kernels.t tests/t82-bisect.t
comma := ,
empty :=
space := $(empty) $(empty)
# prove-lanes BUILD, ENV, SHELL_TESTS, JOBS[, vm-last[, no-units]]: one
# prove over the unit tests of BUILD (none with no-units) and SHELL_TESTS; the machine's tests one after
# another, the free ones in a lane beside them, with JOBS 3 the VM tests in
# a third (else first in the free lane, or with vm-last after the unit
# tests). Every test knows its lane (PM_FREE_TESTS, PM_QUIET_TESTS;
# tests/lib.sh): a machine's test holds the machine lane's lock for its
# life, so two proves (make ci-test's) never run two of them at once.
define prove-lanes
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL PRESSMARK_BIN=$(abspath $(1)/pressmark) PM_FAILURES=$(abspath $(1))/failures.txt \
    PM_CPU_LOG=$(abspath $(1))/cpu.txt \
    PM_FREE_TESTS='$(strip $(FREE_TESTS))' PM_QUIET_TESTS='$(strip $(QUIET_TESTS))' \
    $(2) prove --timer -j$(4) \
    --rules='seq={$(subst $(space),$(comma),$(strip $(filter-out $(FREE_TESTS),$(3))))}' \
    $(if $(filter 3,$(4)),--rules='seq={$(subst $(space),$(comma),$(strip $(LONG_FREE)))}') --rules='seq=**' \
    $(if $(5),,$(filter $(LONG_FREE),$(3))) $(filter-out $(LONG_FREE),$(3)) $(if $(6),,$(UNIT_SRC:tests/%.c=$(1)/tests/%.t)) \
    $(if $(5),$(filter $(LONG_FREE),$(3)))
endef
# Every test leaves /tmp as it found it: a pressmark-test directory (the
# shell tests') or pressmark-unit one (the unit tests') that was not there
# before fails the target.
define tmp-before
@ls -d /tmp/pressmark-test.* /tmp/pressmark-unit.* 2>/dev/null | sort > $(1)/tmp-before || true
endef
define tmp-after
@ls -d /tmp/pressmark-test.* /tmp/pressmark-unit.* 2>/dev/null | sort | comm -13 $(1)/tmp-before - > $(1)/tmp-left || true; \
 if [ -s $(1)/tmp-left ]; then echo "tests left behind: $$(cat $(1)/tmp-left)"; exit 1; fi
endef
define run-tests
$(call tmp-before,$(1))
@rm -f $(1)/failures.txt $(1)/cpu.txt
$(call prove-lanes,$(1),$(2),$(3),3) || \
    { echo "what the failed checks said (the last 60 lines of $(1)/failures.txt):"; \
      tail -n 60 $(1)/failures.txt 2>/dev/null; awk -f tools/first-failures.awk $(1)/failures.txt 2>/dev/null; exit 1; }
@awk -f tools/cpu-summary.awk $(1)/cpu.txt < /dev/null || true
$(call tmp-after,$(1))
endef

test: all layering
	$(call run-tests,$(B),,$(SHELL_TESTS))

# The edit-compile loop: the unit tests and the shell tests that need
# neither root nor VMs, in under a minute. make test runs everything.
QUICK_TESTS := $(filter $(SHELL_TESTS),tests/t04-recipes.t tests/t05-layering.t tests/t06-new-workload.t tests/t07-docs.t tests/t08-failures.t tests/t09-new-backend.t tests/t11-cli.t \
                 tests/t12-bad-input.t tests/t17-metrics.t tests/t41-hostile.t tests/t43-fuzz.t tests/t44-numbers.t \
                 tests/t45-export.t tests/t46-grafana-sqlite.t tests/t47-statistics.t tests/t48-verdicts.t \
                 tests/t49-history.t tests/t56-isolation.t tests/t88-golden.t)
test-quick: all
	$(call run-tests,$(B),,$(QUICK_TESTS))

# Slow checks, beyond what a fresh clone's make test (under ten minutes) can
# spend: the bisections in VMs (about three minutes of TCG boots), the
# protection, MGLRU and zswap cells in guests. Asked for by name, they may
# not skip: a need that is missing (root, QEMU, debootstrap, apt's
# kernels) fails the file, naming it (PM_SLOW_REQUIRED; tests/lib.sh).
SLOW_TESTS := $(wildcard tests/slow/t*.t)
test-slow: all
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL PRESSMARK_BIN=$(abspath $(B)/pressmark) PM_SLOW_REQUIRED=1 prove --timer $(SLOW_TESTS)

# A real LAVA lab on this machine (tools/lava-lab.sh: lava-server, its
# PostgreSQL, a dispatcher and a qemu device under TCG, an artifact store),
# pressmark's suites as its jobs, the lab taken down after (root; about
# eight minutes, the first time longer: it installs LAVA's packages).
LAVA_TESTS := $(wildcard tests/lava/t*.t)
lava-check: all
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL PRESSMARK_BIN=$(abspath $(B)/pressmark) PM_LAVA_REQUIRED=1 prove -v --timer $(LAVA_TESTS)

# The same tests against a sanitised build in its own build directory, the
# fuzz corpora replayed through sanitised harnesses too (t43). What only
# exercises other programs runs once, under make test: the tree's shape
# (t05: this target checks it on its own objects), the install and the
# Debian package (t16, t18: make install, dpkg), the nightly's three nights
# (t19: a shell script over the suite, compare and push that t70 and t60
# run here), the Grafana dashboard's SQL run by SQLite (t46: its record and
# chat are what t10 and t30 run here); t80 boots no VM here (QEMU's time, not
# pressmark's code); the sibling hog's processes and cgroups (t57: its
# C, the spec and the passes' arithmetic, is unit_sibling's here).
CHECK_SKIP := tests/t05-layering.t tests/t16-install.t tests/t18-deb.t tests/t19-nightly.t tests/t46-grafana-sqlite.t \
              tests/t57-sibling.t
SAN := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
CHECK_ENV := PRESSMARK_TEST_SANITIZED=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
check: check-build
	$(call run-tests,build/check,$(CHECK_ENV),$(filter-out $(CHECK_SKIP),$(SHELL_TESTS)))
check-build:
	$(MAKE) B=build/check CFLAGS="$(SAN)" layering build/check/pressmark $(UNIT_SRC:%.c=build/check/%.t) build/check/tests/stats_tool \
	    $(FUZZERS:%=build/check/fuzz/%.replay) build/check/fuzz/writers-emit

# ./run.sh test (and so CI): every test once (t80 twice), both proves at
# once. The machine's tests run one at a time (their lock), so they are
# the target's long pole (measured in December 2026: the lane took 909 of
# the 954 s a fresh clone took); they start as soon as the plain build is
# made, and all of them run on it, where pressmark starts in 24 ms of CPU
# against 126 under ASan and LeakSanitizer. The sanitised build is made
# beside them, at nice 10, and runs the unit tests, the fuzz corpora (t43:
# every parser of hostile input, the options, suites, journals, results,
# figures, writers, chat frames and LAVA's) and the free tests, but for
# those that read only what pressmark itself wrote (CI_PLAIN_FREE:
# statistics, export, verdicts, history, bisection over its own runs; the
# golden outputs over a fixed database), which run plain, at a third of
# the CPU: CI is bound by the two cores. make check runs every test
# sanitised, these and the machine's (t12 and t41's hostile input, t30's
# hostile connections; until December 2026 CI ran those three sanitised,
# 150 s of the long pole); the plain build runs what it leaves out
# (CHECK_SKIP), and t80, whose VMs boot there. The sanitised build's VM
# test (t80, booting none) comes last in its free lane, as it waits for the
# plain build's (vm_lane's lock). On failure both failures' tails are
# printed, then each failed file's first failure in full
# (tools/first-failures.awk), last, where a log cut to its end keeps them.
# Everything but the machine lane runs at nice 10 (the sanitised prove,
# its unit tests with it, and every free test: tests/lib.sh), yielding the
# two cores to the lane that is the long pole.
# Both run in the background (the shell waits, and so takes a signal at
# once): a signal to the recipe's shell ends its whole process group, both
# proves with it.
CI_PLAIN_FREE := tests/t45-export.t tests/t47-statistics.t tests/t48-verdicts.t tests/t49-history.t tests/t88-golden.t \
                 tests/t82-bisect.t
CI_PLAIN := $(filter $(CHECK_SKIP) tests/t80-kernels.t $(CI_PLAIN_FREE) $(filter-out $(FREE_TESTS),$(SHELL_TESTS)),$(SHELL_TESTS))
CI_CHECK := $(filter $(filter-out $(CHECK_SKIP) $(CI_PLAIN_FREE),$(FREE_TESTS)),$(SHELL_TESTS))
# (The sanitised build's make is named through SUBMAKE: a recipe line that
# names $(MAKE) is run even under make -n, and this one runs every test.)
SUBMAKE = $(MAKE)
# The machine's tests need the program and stats_tool alone: the plain
# unit tests and fuzz replays (which CI runs sanitised) are made beside
# them with the sanitised build, at nice 10 (10 s of the long pole's
# start, measured), and fail the target as it does.
ci-test: pressmark $(B)/tests/stats_tool layering
	$(call tmp-before,$(B))
	@rm -f $(B)/failures.txt build/check/failures.txt $(B)/ci-plain.rc $(B)/ci-check.rc $(B)/cpu.txt build/check/cpu.txt
	@trap 'trap "" INT TERM HUP; kill 0; exit 130' INT TERM HUP; \
	 { $(call prove-lanes,$(B),,$(CI_PLAIN),3,,no-units); echo $$? > $(B)/ci-plain.rc; } 2>&1 | sed -u 's/^/plain: /' & \
	 { if nice -n 10 $(SUBMAKE) -s -j$$(nproc) $(UNIT_BIN) $(REPLAY_BIN) check-build > $(B)/check-build.log 2>&1; then \
	       $(call prove-lanes,build/check,$(CHECK_ENV) nice -n 10,$(CI_CHECK),2,vm-last); echo $$? > $(B)/ci-check.rc; \
	   else echo "the unit tests' or the sanitised build failed; the last lines of $(B)/check-build.log:"; tail -n 15 $(B)/check-build.log; \
	        echo build > $(B)/ci-check.rc; fi; } 2>&1 | sed -u 's/^/check: /' & \
	 wait; awk -f tools/cpu-summary.awk $(B)/cpu.txt build/check/cpu.txt < /dev/null; \
	 test "$$(cat $(B)/ci-plain.rc $(B)/ci-check.rc 2>/dev/null | tr '\n' ' ')" = "0 0 " || \
	 { for f in $(B)/failures.txt build/check/failures.txt; do [ ! -s $$f ] || { echo "what the failed checks said ($$f, its last 60 lines):"; tail -n 60 $$f; }; done; \
	   for f in $(B)/failures.txt build/check/failures.txt; do [ ! -s $$f ] || { echo "first failures ($$f):"; awk -f tools/first-failures.awk $$f; }; done; \
	   [ "$$(cat $(B)/ci-check.rc 2>/dev/null)" != build ] || { echo "the unit tests' or the sanitised build failed (the last lines of $(B)/check-build.log):"; tail -n 15 $(B)/check-build.log; }; \
	   echo "ci-test: failed (plain: $$(cat $(B)/ci-plain.rc 2>/dev/null), sanitised: $$(cat $(B)/ci-check.rc 2>/dev/null))"; exit 1; }
	$(call tmp-after,$(B))

# ThreadSanitizer over the threaded code: sampler, heartbeat, chat, the
# memory workloads' threads and gauges, the suite's live progress (drawn
# from the sampler thread). Every
# process writes its reports to build/tsan/report.PID; any report fails the
# target, also from a process whose exit status no test looks at.
tsan:
	$(MAKE) B=build/tsan CFLAGS="-O1 -g -fsanitize=thread" build/tsan/pressmark build/tsan/tests/stats_tool
	rm -f build/tsan/report.*
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL PRESSMARK_BIN=$(abspath build/tsan/pressmark) \
	    TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:log_path=$(abspath build/tsan/report) \
	    prove -f tests/t10-record.t tests/t30-chat.t tests/t55-memory-workloads.t tests/t70-suite.t
	@if ls build/tsan/report.* >/dev/null 2>&1; then cat build/tsan/report.*; echo "make tsan: ThreadSanitizer reports above"; exit 1; fi

# libFuzzer over each harness for FUZZ_TIME seconds (default 600), new
# inputs merged into the committed corpora: make fuzz FUZZ_TIME=60
# FUZZERS="proc units". Needs clang; crashes land in build/fuzz/.
FUZZ_TIME ?= 600
FUZZ_SAN := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
fuzz: fuzz-build
	fuzz/run.sh $(FUZZ_TIME) $(FUZZERS)
fuzz-build:
	$(MAKE) CC=clang B=build/fuzz CFLAGS="$(FUZZ_SAN)" build/fuzz/libpressmark.a $(FUZZERS:%=build/fuzz/fuzz/fuzz_%.o) build/fuzz/fuzz/split.o
	@for f in $(FUZZERS); do \
	    clang $(subst fuzzer-no-link,fuzzer,$(FUZZ_SAN)) -o build/fuzz/$$f.fuzz build/fuzz/fuzz/fuzz_$$f.o build/fuzz/fuzz/split.o \
	        build/fuzz/libpressmark.a $(LDLIBS) || exit 1; \
	done

# The tree's shape (tools/layering.sh): includes and calls between the
# objects point down only (layering.txt), no files of one folder call each
# other in a circle, no function is over 100 lines. t05 plants each kind
# of violation and checks that this target fails.
layering: $(LIB_OBJ) $(B)/cmd/main.o
	@tools/layering.sh . $(B)

bench: all $(B)/bench/sources_cost $(B)/bench/reports_fixture $(B)/bench/sample_tool $(B)/bench/verdict_tool \
       $(B)/bench/cp_tool $(B)/bench/gate_tool
	bench/run-all.sh

# A bare Debian 12 root, a clone of HEAD, ./run.sh test and ./run.sh inside
# (minutes; root). Run it before resolving anything that changes dependencies.
fresh-root:
	tools/fresh-root.sh

# pressmark on a stock Debian 12 host: cgroup v2 only, systemd as process
# 1, a swap device; a QEMU guest under TCG booting Debian's 6.12 cloud
# kernel, running ./run.sh and the tests that change the machine
# (tools/v2-host-check.sh; root, about an hour; V2_TESTS="t20 t57" for
# fewer, V2_FLAGS=--tests-only to leave out ./run.sh).
v2-host-check: pressmark
	tools/v2-host-check.sh $(if $(V2_TESTS),--tests "$(V2_TESTS)") $(V2_FLAGS)

# Man pages, written from pressmark's own --help (the option tables): one
# source, so they cannot drift from the program. Written again only when
# the program, the script or what they are given (SYSCONFDIR, VERSION)
# changed: make install made them anew each time, some 8 CPU-s of forty
# --help runs, in t16 on CI's long pole.
man: $(B)/man/.made
$(B)/man.vars: FORCE
	@mkdir -p $(@D)
	@printf '%s\n' '$(SYSCONFDIR) $(VERSION)' | cmp -s - $@ || printf '%s\n' '$(SYSCONFDIR) $(VERSION)' > $@
$(B)/man/.made: $(B)/pressmark man/gen.sh $(B)/man.vars
	rm -rf $(B)/man
	SYSCONFDIR='$(SYSCONFDIR)' man/gen.sh $(B)/pressmark $(B)/man '$(VERSION)'
	touch $@

# make install [PREFIX=/usr/local] [DESTDIR=...]; make uninstall takes the
# same. Exactly these files (tests/t16-install.t lists them).
PREFIX  ?= /usr/local
BINDIR   = $(DESTDIR)$(PREFIX)/bin
MANDIR   = $(DESTDIR)$(PREFIX)/share/man
SHAREDIR = $(DESTDIR)$(PREFIX)/share/pressmark
DOCDIR   = $(DESTDIR)$(PREFIX)/share/doc/pressmark
COMPDIR  = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
INI      = $(wildcard suites/*.ini)
# The nightly service's files; /usr installs its settings in /etc, as
# Debian's package does, and its units where debhelper expects them.
SYSCONFDIR     ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
LIBEXECDIR     ?= $(PREFIX)/libexec
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
NIGHTLY_CONF    = $(DESTDIR)$(SYSCONFDIR)/pressmark/nightly.conf
SUBST = sed -e 's|@BINDIR@|$(PREFIX)/bin|g' -e 's|@LIBEXECDIR@|$(LIBEXECDIR)|g' \
            -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' -e 's|@SHAREDIR@|$(PREFIX)/share/pressmark|g'
install: man
	install -d $(BINDIR) $(MANDIR)/man1 $(MANDIR)/man5 $(MANDIR)/man7 $(MANDIR)/man8 $(SHAREDIR)/suites $(SHAREDIR)/grafana $(DOCDIR)/json $(DOCDIR)/guide $(DOCDIR)/guide/img $(COMPDIR)
	install -d $(DESTDIR)$(LIBEXECDIR)/pressmark $(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(SYSCONFDIR)/pressmark
	install -m 0755 $(B)/pressmark $(BINDIR)/pressmark
	install -m 0644 $(B)/man/*.1 $(MANDIR)/man1/
	install -m 0644 $(B)/man/*.5 $(MANDIR)/man5/
	install -m 0644 $(B)/man/*.7 $(MANDIR)/man7/
	install -m 0644 $(B)/man/*.8 $(MANDIR)/man8/
	$(SUBST) nightly/pressmark-nightly > $(DESTDIR)$(LIBEXECDIR)/pressmark/pressmark-nightly
	chmod 0755 $(DESTDIR)$(LIBEXECDIR)/pressmark/pressmark-nightly
	$(SUBST) nightly/pressmark-nightly.service > $(DESTDIR)$(SYSTEMDUNITDIR)/pressmark-nightly.service
	$(SUBST) nightly/pressmark-nightly.timer > $(DESTDIR)$(SYSTEMDUNITDIR)/pressmark-nightly.timer
	chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/pressmark-nightly.service $(DESTDIR)$(SYSTEMDUNITDIR)/pressmark-nightly.timer
	@# Settings a user has edited are kept.
	if [ ! -e $(NIGHTLY_CONF) ]; then $(SUBST) nightly/nightly.conf > $(NIGHTLY_CONF) && chmod 0644 $(NIGHTLY_CONF); fi
	install -m 0644 $(INI) $(SHAREDIR)/suites/
	install -m 0644 grafana/*.json $(SHAREDIR)/grafana/
	install -m 0644 README.md $(DOCDIR)/README.md
	install -m 0644 docs/json/*.json $(DOCDIR)/json/
	@# The user guide keeps docs/'s layout, so its links to ../security.md hold.
	install -m 0644 docs/guide/*.md $(DOCDIR)/guide/
	install -m 0644 docs/guide/img/*.png $(DOCDIR)/guide/img/
	install -m 0644 docs/security.md $(DOCDIR)/security.md
	install -m 0644 completion/pressmark $(COMPDIR)/pressmark

uninstall:
	rm -f $(BINDIR)/pressmark $(COMPDIR)/pressmark
	rm -f $(MANDIR)/man1/pressmark.1 $(MANDIR)/man1/pressmark-*.1 $(MANDIR)/man5/pressmark-suite.5 $(MANDIR)/man7/pressmark-metrics.7
	rm -f $(MANDIR)/man8/pressmark-nightly.8 $(DESTDIR)$(LIBEXECDIR)/pressmark/pressmark-nightly
	rm -f $(DESTDIR)$(SYSTEMDUNITDIR)/pressmark-nightly.service $(DESTDIR)$(SYSTEMDUNITDIR)/pressmark-nightly.timer
	rm -rf $(SHAREDIR) $(DOCDIR)
	rmdir $(DESTDIR)$(LIBEXECDIR)/pressmark 2>/dev/null || true
	@# Settings are removed only as installed; edited ones are kept, and said so.
	if $(SUBST) nightly/nightly.conf | cmp -s - $(NIGHTLY_CONF); then rm -f $(NIGHTLY_CONF); rmdir $(DESTDIR)$(SYSCONFDIR)/pressmark 2>/dev/null || true; \
	elif [ -e $(NIGHTLY_CONF) ]; then echo "make uninstall: $(NIGHTLY_CONF) was edited; it is kept"; fi

clean:
	rm -rf build pressmark
