# benchguard -- plain Makefile.  `make help` lists the targets.
#
#   make            build the library and the CLI into $(BUILD)
#   make test       install missing packages, build, run every test
#   make demo       a scratch repository: ci catches a slow commit, bisect names it
#   make bench      measure benchguard against its peers (see tests/bench)
#   make install    the binary, libbenchguard.so/.a, benchguard.pc, headers, man page, completions
#   make deps-build the packages to build and run it only (what ci/'s templates install)
#   make SANITIZE=1 test   the same under ASan+UBSan (separate build dir)
#   make fuzz       libFuzzer on the parsers, FUZZ_TIME seconds each (tests/fuzz)
#   make clang-check   every C source through clang's warnings (no build)
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
# libpq (lib/store_pg.c), libcurl (lib/alert.c) and libxml2 (lib/xml.c) are
# loaded with dlopen when a PostgreSQL store is opened, an alert sent or an
# XML document read or written, not linked: with the libraries they bring,
# they were half of every run's start-up time.  Their headers are still
# needed; tests/e2e/t_lazy_libs.sh checks they stay out of the link.
PKGS      = libgit2 sqlite3 gsl json-c libcrypto
DL_PKGS   = libpq libcurl libxml-2.0
WARN      = -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
            -Wmissing-prototypes -Wfloat-equal
ifeq ($(WERROR),1)
WARN     += -Werror
endif
OPT      ?= -O2 -g
CFLAGS   ?=
# override: a packager's CPPFLAGS=... on the command line adds to these.
override CPPFLAGS += -D_GNU_SOURCE -Ilib
ALL_CFLAGS = -std=c11 $(OPT) $(WARN) $(SANFLAGS) $(CFLAGS) -MMD -MP
PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PKGS) $(DL_PKGS) 2>/dev/null)
PKG_LIBS   = $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
# dlopen: in libc itself since glibc 2.34, in libdl before.
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
# The shared library: libbenchguard.so.VERSION (BG_VERSION in lib/benchguard.h)
# with soname libbenchguard.so.MAJOR, exporting only what benchguard.h declares.
LIBVERSION := $(shell sed -n 's/^.define BG_VERSION "\(.*\)"/\1/p' lib/benchguard.h)
SONAME   = libbenchguard.so.$(firstword $(subst ., ,$(LIBVERSION)))
LIBSO    = $(BUILD)/libbenchguard.so.$(LIBVERSION)
LIBSO_LINKS = $(BUILD)/$(SONAME) $(BUILD)/libbenchguard.so
LIBMAP   = $(BUILD)/libbenchguard.map
# Where `make install` puts the libraries and benchguard.pc, and the headers.
LIBDIR     = $(PREFIX)/lib
INCLUDEDIR = $(PREFIX)/include

# What building, installing and running benchguard needs, valgrind for the
# `simulate` instrument included (`make deps-build`): the CI templates in
# ci/ install only these on their runners, with the same names on Debian
# and Ubuntu.
BUILD_DEB_PKGS = make gcc pkg-config git libgit2-dev libsqlite3-dev libgsl-dev \
                 libjson-c-dev libssl-dev libcurl4-openssl-dev libpq-dev libxml2-dev valgrind
# Debian packages the build, the tests, the examples and `make bench` need.
DEB_PKGS = $(BUILD_DEB_PKGS) g++ sqlite3 libxml2-utils \
           libcmocka-dev libbenchmark-dev hyperfine procps python3 python3-scipy python3-yaml \
           chromium chromium-driver postgresql zsh groff-base man-db \
           golang-go python3-pytest-benchmark linux-perf clang strace locales

.PHONY: all test unit e2e demo deps deps-build bench install uninstall format examples clean help \
        fuzz fuzz-bins clang-check

all: $(BIN) $(LIBSO_LINKS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(say) CC $<
	$(Q)$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(ALL_CFLAGS) $(PIC) -c $< -o $@

# The library's objects go into both the archive and the shared library:
# position-independent.  The stamp, newer than objects built before they
# were, has those rebuilt once.
PIC_STAMP = $(BUILD)/lib/.pic
$(LIB_OBJ): PIC = -fPIC
$(LIB_OBJ): $(PIC_STAMP)
$(PIC_STAMP):
	@mkdir -p $(dir $@)
	@touch $@

$(LIBA): $(LIB_OBJ)
	@rm -f $@
	$(say) AR $@
	$(Q)ar rcs $@ $^

# The linker's version script: the functions benchguard.h declares (a name
# before "(" in the preprocessor's output, so comments do not count) are
# exported, everything else is local; bg_x__y names are internal.
$(LIBMAP): lib/benchguard.h
	@mkdir -p $(dir $@)
	$(say) MAP $@
	$(Q){ echo '{ global:'; $(CC) -E -P lib/benchguard.h | grep -oE '\<bg_[a-z0-9_]+[[:space:]]*\(' | \
	  tr -d ' \t(' | grep -v '__' | sort -u | sed 's/.*/  &;/'; echo '  local: *; };'; } >$@.tmp
	$(Q)mv $@.tmp $@

# It names the libraries it needs itself, so a program links -lbenchguard alone.
$(LIBSO): $(LIB_OBJ) $(LIBMAP)
	$(say) SO $@
	$(Q)$(CC) -shared $(SANFLAGS) $(LDFLAGS) -Wl,-soname,$(SONAME) -Wl,--version-script=$(LIBMAP) \
	  -Wl,--no-undefined -o $@ $(LIB_OBJ) $(LIBS)

$(LIBSO_LINKS): $(LIBSO)
	$(Q)ln -sf $(notdir $(LIBSO)) $@

# The binary exports one function of mbedTLS's so that libgit2 calls its
# own at start-up (lib/git.c says why: the CA bundle, parsed when needed).
$(BIN): $(CMD_OBJ) $(LIBA)
	$(say) LINK $@
	$(Q)$(CC) $(SANFLAGS) $(LDFLAGS) -Wl,--export-dynamic-symbol=mbedtls_x509_crt_parse_file \
	  -o $@ $(CMD_OBJ) $(LIBA) $(LIBS)

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
# apt_install PACKAGES: those not installed yet, through sudo when not root.
define apt_install
	@missing=$$(dpkg-query -W -f='$${Package} $${db:Status-Abbrev}\n' $(1) 2>/dev/null \
	  | awk '$$2 == "ii" { ok[$$1] = 1 } END { n = split("$(1)", p, " "); \
	      for (i = 1; i <= n; i++) if (!(p[i] in ok)) printf "%s ", p[i] }'); \
	if [ -n "$$missing" ]; then \
	  sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	  echo "installing: $$missing"; \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi
endef

deps:
	$(call apt_install,$(DEB_PKGS))

deps-build:
	$(call apt_install,$(BUILD_DEB_PKGS))

# The fuzz harnesses (tests/fuzz/README.md).  `make unit` links each with
# tests/fuzz/replay.c into a test that feeds it every stored input once, so
# `make test` and `make SANITIZE=1 test` replay the corpora and the crash
# reproducers; `make fuzz` builds them with clang's libFuzzer into
# $(FUZZ_BUILD) and runs each for FUZZ_TIME seconds.
FUZZ_HARNESSES ?= config lines gbench nvbench hyperfine go pytest catch2 perfstat baseline text
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

# `make fuzz` builds with clang, which warns where gcc does not (a struct
# initialised with { NULL } leaves its other fields to -Wextra): the same
# warnings and -Werror, every source, syntax only (a few seconds).
# FUZZ_NAME is what `make unit` gives tests/fuzz/replay.c per harness.
# tests/e2e/t_clang.sh runs it.
CLANG       ?= clang
CLANG_CHECK ?= $(LIB_SRC) $(CMD_SRC) $(UNIT_SRC) $(wildcard tests/unit/fake_gpu.c) \
               $(wildcard tests/fuzz/*.c) examples/api/ci_json.c
clang-check:
	$(Q)$(CLANG) -fsyntax-only $(CPPFLAGS) $(PKG_CFLAGS) $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null) \
	  -DFUZZ_NAME='"check"' -std=c11 $(WARN) $(CLANG_CHECK)

unit: $(UNIT_BIN) $(FAKE_GPU) $(API_EXAMPLE) $(FUZZ_REPLAY)
test: deps
	@$(MAKE) --no-print-directory all unit examples
	@tests/run.sh $(BUILD)

# A scratch repository with its own database: a baseline, a slow commit that
# ci fails and bisect names, the HTML report in build/demo/report.html.  It
# builds its own copy of examples/c, so the examples need no build here.
demo: deps
	@$(MAKE) --no-print-directory all
	@tests/demo.sh $(BIN)

bench: deps
	@$(MAKE) --no-print-directory all examples
	@tests/bench/run.sh $(BUILD)

# The shared library with its soname links, the archive, pkgconfig/
# benchguard.pc and the public headers go to LIBDIR and INCLUDEDIR
# (tests/e2e/t_install.sh builds programs against them there).
# The man page and the shell completions go where man, bash-completion and
# zsh look under PREFIX (tests/e2e/t_manpage.sh installs into a scratch one).
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(LIBDIR)/pkgconfig \
	  $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	  $(DESTDIR)$(PREFIX)/share/zsh/site-functions
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/benchguard
	install -m 644 lib/benchguard.h $(DESTDIR)$(INCLUDEDIR)/benchguard.h
	install -m 644 lib/benchguard_harness.h $(DESTDIR)$(INCLUDEDIR)/benchguard_harness.h
	install -m 644 lib/benchguard_region.h $(DESTDIR)$(INCLUDEDIR)/benchguard_region.h
	install -m 644 $(LIBA) $(DESTDIR)$(LIBDIR)/libbenchguard.a
	install -m 755 $(LIBSO) $(DESTDIR)$(LIBDIR)/$(notdir $(LIBSO))
	ln -sf $(notdir $(LIBSO)) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libbenchguard.so
	sed -e 's|@PREFIX@|$(PREFIX)|' \
	  -e 's|@LIBDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|' \
	  -e 's|@INCLUDEDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))|' \
	  -e 's|@VERSION@|$(LIBVERSION)|' -e 's|@LIBS_PRIVATE@|$(strip $(LIBS))|' \
	  lib/benchguard.pc.in >$(DESTDIR)$(LIBDIR)/pkgconfig/benchguard.pc
	install -m 644 docs/benchguard.1 $(DESTDIR)$(PREFIX)/share/man/man1/benchguard.1
	install -m 644 docs/completions/benchguard.bash \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions/benchguard
	install -m 644 docs/completions/_benchguard $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_benchguard

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/benchguard $(DESTDIR)$(INCLUDEDIR)/benchguard.h \
	      $(DESTDIR)$(INCLUDEDIR)/benchguard_harness.h \
	      $(DESTDIR)$(INCLUDEDIR)/benchguard_region.h \
	      $(DESTDIR)$(LIBDIR)/libbenchguard.a $(DESTDIR)$(LIBDIR)/$(notdir $(LIBSO)) \
	      $(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libbenchguard.so \
	      $(DESTDIR)$(LIBDIR)/pkgconfig/benchguard.pc \
	      $(DESTDIR)$(PREFIX)/share/man/man1/benchguard.1 \
	      $(DESTDIR)$(PREFIX)/share/bash-completion/completions/benchguard \
	      $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_benchguard

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
	@sed -n '1,12p' Makefile

-include $(LIB_OBJ:.o=.d) $(CMD_OBJ:.o=.d)
