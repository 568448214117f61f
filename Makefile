# pressmark: one binary, built with gcc as C11 with warnings as errors.
CC      ?= gcc
PKGS    := sqlite3 libcurl zlib
# CFLAGS is yours to set (make CFLAGS=-O0); what the code needs is in PM_CFLAGS.
CFLAGS  ?= -O2 -g
# -Wno-format-truncation: snprintf into fixed buffers is how this code
# truncates on purpose (paths, notes); every such call is bounded.
PM_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-truncation \
             -Wstrict-prototypes -Wmissing-prototypes -Wvla \
             -I. $(shell pkg-config --cflags $(PKGS))
LDLIBS  += $(shell pkg-config --libs $(PKGS)) -lgsl -lgslcblas -lz -lm -pthread

# Everything but main.c goes into a library so unit tests link the same code.
LIB_SRC := $(filter-out harness/main.c,$(wildcard harness/*.c collectors/*.c workloads/*.c reports/*.c))
LIB_OBJ := $(LIB_SRC:.c=.o)
UNIT_SRC := $(wildcard tests/unit_*.c)
UNIT_BIN := $(UNIT_SRC:.c=.t)

.PHONY: all test check bench clean fresh-root
all: pressmark $(UNIT_BIN)

libpressmark.a: $(LIB_OBJ)
	$(AR) rcs $@ $^

pressmark: harness/main.o libpressmark.a
	$(CC) $(CFLAGS) $(PM_CFLAGS) -o $@ $^ $(LDLIBS)

tests/unit_%.t: tests/unit_%.c tests/tap.h libpressmark.a
	$(CC) $(CFLAGS) $(PM_CFLAGS) -o $@ $< libpressmark.a $(LDLIBS)

# Header dependencies, so a changed struct rebuilds everything that uses it.
%.o: %.c
	$(CC) $(CFLAGS) $(PM_CFLAGS) -MMD -MP -c -o $@ $<
-include $(LIB_OBJ:.o=.d) harness/main.d

# prove runs the unit binaries and the shell tests alike (both speak TAP).
# Every test leaves /tmp as it found it: a pressmark-test directory that
# was not there before fails the target.
test: all
	@ls -d /tmp/pressmark-test.* 2>/dev/null | sort > .tmp-before || true
	prove -f tests/
	@ls -d /tmp/pressmark-test.* 2>/dev/null | sort | comm -13 .tmp-before - > .tmp-left || true; \
	 rm -f .tmp-before; if [ -s .tmp-left ]; then echo "tests left behind: $$(cat .tmp-left)"; rm -f .tmp-left; exit 1; fi; rm -f .tmp-left

# A bare Debian 12 root, a clone of HEAD, ./run.sh test and ./run.sh inside
# (minutes; root). Run it before resolving anything that changes dependencies.
fresh-root:
	tests/fresh-root.sh

# Sanitised build in its own tree so it never mixes objects with the plain one.
check:
	rm -rf .check && mkdir -p .check
	cp -r Makefile harness collectors workloads reports suites tests bench grafana .check/
	$(MAKE) -C .check clean
	$(MAKE) -C .check all CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
	cd .check && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 prove -f tests/

bench: all
	bench/run-all.sh

clean:
	rm -f pressmark libpressmark.a harness/*.o collectors/*.o workloads/*.o reports/*.o \
	      harness/*.d collectors/*.d workloads/*.d reports/*.d tests/unit_*.t
