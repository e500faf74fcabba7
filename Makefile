# benchguard -- plain Makefile.  `make help` lists the targets.
#
#   make            build the library and the CLI into $(BUILD)
#   make test       install missing packages, build, run every test
#   make demo       build and run the example suite a few times, print history
#   make bench      measure benchguard against its peers (see tests/bench)
#   make SANITIZE=1 test   the same under ASan+UBSan (separate build dir)
#   make fuzz       libFuzzer on the parsers, FUZZ_TIME seconds each (tests/fuzz)
#   make V=1        show the full compiler commands

PREFIX   ?= /usr/local
CC       ?= cc
CXX      ?= c++
PKG_CONFIG ?= pkg-config
WERROR   ?= 1
SANITIZE ?=
V        ?= 0
ifeq ($(V),1)
Q =
say = @true
else
Q = @
say = @printf '  %-6s %s\n'
endif

ifeq ($(SANITIZE),1)
BUILD    ?= build/sanitize
SANFLAGS  = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
BUILD    ?= build/release
SANFLAGS  =
endif

# Each library is used by one module only; pkg-config finds them all.
PKGS      = libgit2 sqlite3 libpq gsl json-c libcrypto libcurl
WARN      = -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
            -Wmissing-prototypes -Wfloat-equal
ifeq ($(WERROR),1)
WARN     += -Werror
endif
OPT      ?= -O2 -g
CFLAGS   ?=
CPPFLAGS += -D_GNU_SOURCE -Ilib
ALL_CFLAGS = -std=c11 $(OPT) $(WARN) $(SANFLAGS) $(CFLAGS) -MMD -MP
PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
LIBS       = $(PKG_LIBS) -ldl -lm
CMOCKA_LIBS = $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)

LIB_SRC  = $(sort $(wildcard lib/*.c))
CMD_SRC  = $(sort $(wildcard cmd/*.c))
UNIT_SRC = $(sort $(wildcard tests/unit/test_*.c))
LIB_OBJ  = $(LIB_SRC:%.c=$(BUILD)/%.o)
CMD_OBJ  = $(CMD_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
LIBA     = $(BUILD)/libbenchguard.a
BIN      = $(BUILD)/benchguard

# Debian packages the build, the tests, the examples and `make bench` need.
DEB_PKGS = make gcc g++ pkg-config git libgit2-dev libsqlite3-dev sqlite3 valgrind \
           libgsl-dev libcurl4-openssl-dev libjson-c-dev libssl-dev \
           libcmocka-dev libbenchmark-dev hyperfine procps python3 python3-scipy python3-yaml \
           chromium chromium-driver postgresql libpq-dev

.PHONY: all test unit e2e demo deps bench install uninstall format examples clean help \
        fuzz fuzz-bins

all: $(BIN)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(say) CC $<
	$(Q)$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(ALL_CFLAGS) -c $< -o $@

$(LIBA): $(LIB_OBJ)
	@rm -f $@
	$(say) AR $@
	$(Q)ar rcs $@ $^

$(BIN): $(CMD_OBJ) $(LIBA)
	$(say) LINK $@
	$(Q)$(CC) $(SANFLAGS) $(LDFLAGS) -o $@ $(CMD_OBJ) $(LIBA) $(LIBS)

$(BUILD)/tests/%: tests/unit/%.c tests/unit/unit.h $(LIBA)
	@mkdir -p $(dir $@)
	$(say) TEST $@
	$(Q)$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(ALL_CFLAGS) -o $@ $< $(LIBA) $(CMOCKA_LIBS) $(LIBS)

# The library's own example (examples/api), built here against this build's
# library so that each build (release, sanitizer) tests its own.
API_EXAMPLE = $(BUILD)/examples/ci_json
$(API_EXAMPLE): examples/api/ci_json.c lib/benchguard.h $(LIBA)
	@mkdir -p $(dir $@)
	$(say) CC $@
	$(Q)$(CC) $(PKG_CFLAGS) $(ALL_CFLAGS) -Ilib -o $@ $< $(LIBA) $(LIBS)

# A stand-in for NVML and the CUDA driver, dlopen'ed by test_fingerprint.
FAKE_GPU = $(BUILD)/tests/libfakegpu.so
$(FAKE_GPU): tests/unit/fake_gpu.c
	@mkdir -p $(dir $@)
	$(say) SO $@
	$(Q)$(CC) -std=c11 -O2 $(WARN) -Wno-missing-prototypes -shared -fPIC -o $@ $<
$(BUILD)/tests/test_fingerprint: $(FAKE_GPU)

# The CUDA examples build wherever nvcc is, GPU or not (else a line says so).
examples:
	$(Q)$(MAKE) -s -C examples/c
	$(Q)$(MAKE) -s -C examples/gbench
	$(Q)$(MAKE) -s -C examples/cuda
	$(Q)$(MAKE) -s -C examples/instructions

# Idempotent: one dpkg-query when everything is present, apt-get otherwise.
deps:
	@missing=$$(dpkg-query -W -f='$${Package} $${db:Status-Abbrev}\n' $(DEB_PKGS) 2>/dev/null \
	  | awk '$$2 == "ii" { ok[$$1] = 1 } END { n = split("$(DEB_PKGS)", p, " "); \
	      for (i = 1; i <= n; i++) if (!(p[i] in ok)) printf "%s ", p[i] }'); \
	if [ -n "$$missing" ]; then \
	  sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	  echo "installing: $$missing"; \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

# The fuzz harnesses (tests/fuzz/README.md).  `make unit` links each with
# tests/fuzz/replay.c into a test that feeds it every stored input once, so
# `make test` and `make SANITIZE=1 test` replay the corpora and the crash
# reproducers; `make fuzz` builds them with clang's libFuzzer into
# $(FUZZ_BUILD) and runs each for FUZZ_TIME seconds.
FUZZ_HARNESSES ?= config lines gbench nvbench hyperfine baseline text
FUZZ_REPLAY = $(FUZZ_HARNESSES:%=$(BUILD)/tests/test_fuzz_%)
FUZZ_BIN    = $(FUZZ_HARNESSES:%=$(BUILD)/fuzz/fuzz_%)
FUZZ_DEPS   = tests/fuzz/fuzz.h tests/fuzz/format.h
FUZZ_CC    ?= clang
FUZZ_BUILD ?= build/libfuzzer
FUZZ_TIME  ?= 600
FUZZ_SAN    = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
# Only `make fuzz` needs these; `make test` does not.
FUZZ_DEB_PKGS = clang libclang-rt-14-dev

$(BUILD)/tests/test_fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(FUZZ_DEPS) $(LIBA)
	@mkdir -p $(dir $@)
	$(say) TEST $@
	$(Q)$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(ALL_CFLAGS) -DFUZZ_NAME='"$*"' -o $@ \
	  tests/fuzz/fuzz_$*.c tests/fuzz/replay.c $(LIBA) $(LIBS)

# Built by the sub-make of `fuzz`, where CC is clang and the library's
# objects carry -fsanitize=fuzzer-no-link.
$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_DEPS) $(LIBA)
	@mkdir -p $(dir $@)
	$(say) FUZZ $@
	$(Q)$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(ALL_CFLAGS) -fsanitize=fuzzer -o $@ $< $(LIBA) $(LIBS)
fuzz-bins: $(FUZZ_BIN)

fuzz:
	@$(MAKE) --no-print-directory deps DEB_PKGS="$(FUZZ_DEB_PKGS)"
	@$(MAKE) --no-print-directory CC=$(FUZZ_CC) BUILD=$(FUZZ_BUILD) \
	  SANFLAGS="$(FUZZ_SAN) -fsanitize=fuzzer-no-link" fuzz-bins
	@tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_TIME) $(FUZZ_HARNESSES)

unit: $(UNIT_BIN) $(FAKE_GPU) $(API_EXAMPLE) $(FUZZ_REPLAY)
test: deps
	@$(MAKE) --no-print-directory all unit examples
	@tests/run.sh $(BUILD)

demo: deps
	@$(MAKE) --no-print-directory all examples
	@tests/demo.sh $(BIN)

bench: deps
	@$(MAKE) --no-print-directory all examples
	@tests/bench/run.sh $(BUILD)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/benchguard
	install -m 644 lib/benchguard.h $(DESTDIR)$(PREFIX)/include/benchguard.h
	install -m 644 lib/benchguard_harness.h $(DESTDIR)$(PREFIX)/include/benchguard_harness.h
	install -m 644 lib/benchguard_region.h $(DESTDIR)$(PREFIX)/include/benchguard_region.h
	install -m 644 $(LIBA) $(DESTDIR)$(PREFIX)/lib/libbenchguard.a

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/benchguard $(DESTDIR)$(PREFIX)/include/benchguard.h \
	      $(DESTDIR)$(PREFIX)/include/benchguard_harness.h \
	      $(DESTDIR)$(PREFIX)/include/benchguard_region.h \
	      $(DESTDIR)$(PREFIX)/lib/libbenchguard.a

format:
	clang-format -i lib/*.c lib/*.h cmd/*.c cmd/*.h tests/unit/*.c tests/unit/*.h \
	  examples/c/*.c examples/gbench/*.cc tests/bench/*.c examples/cuda/*.cu \
	  examples/instructions/*.c

clean:
	rm -rf build
	$(MAKE) -C examples/c clean
	$(MAKE) -C examples/gbench clean
	$(MAKE) -C examples/cuda clean
	$(MAKE) -C examples/instructions clean

help:
	@sed -n '1,11p' Makefile

-include $(LIB_OBJ:.o=.d) $(CMD_OBJ:.o=.d)
