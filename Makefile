# Rubicon top-level Makefile.
#
#   make          build the package and the rubicon shell into build/
#   make check    build, run the units, then every unit and tcltest suite
#                 under ASan/UBSan, print "N passed, N failed"
#   make check-valgrind  the units under valgrind memcheck
#   make demo     run examples/demo.tcl on the bundled real SRT trace
#   make bench    speed against hand-written C and common tools
#   make fuzz     run the fuzz harnesses for a bounded time
#   make install  the program, the Tcl package and the C SDK under
#                 $(DESTDIR)$(PREFIX) (see INSTALL LAYOUT below); make
#                 uninstall removes them
#   make deb      a Debian package of the same, in build/deb/
#
# A fresh clone needs only this file: it installs missing Debian packages
# (as root) and runs autoconf and configure when needed.

VERSION   = 0.1
BUILD    ?= build
OPT      ?= -O2
SANITIZE ?=

# Missing Debian packages are found before anything is built: as root they
# are installed, otherwise ensure-deps.sh prints the apt-get line and make
# stops here.  The check is redone when ensure-deps.sh changes.
ifeq ($(filter deps clean distclean,$(MAKECMDGOALS)),)
ifneq ($(shell test -f config.mk && test $(BUILD)/.deps-ok -nt scripts/ensure-deps.sh && echo ok),ok)
ifneq ($(shell sh scripts/ensure-deps.sh >&2 && mkdir -p $(BUILD) && touch $(BUILD)/.deps-ok && echo ok),ok)
$(error install the Debian packages named above, then run make again)
endif
endif
endif

-include config.mk

# ./configure --prefix sets CONFIG_PREFIX; PREFIX=... on the command line
# wins over both.
PREFIX   ?= $(or $(CONFIG_PREFIX),/usr/local)

SRCS      := $(shell find generic -name '*.c' | sort)
OBJS      := $(SRCS:%.c=$(BUILD)/obj/%.o)
# The four plugins are shared libraries of their own (lib<name>.so, package
# rubicon::<name>), built against rubicon.h and the stubs tables only; the
# core library and program hold none of them.  The C unit tests link the
# plugins' code directly (OBJS).
PLUGINS   := magpie stardust observer txmix
CORESRCS  := $(filter-out generic/plugins/%,$(SRCS))
COREOBJS  := $(CORESRCS:%.c=$(BUILD)/obj/%.o)
PLUGINLIBS := $(PLUGINS:%=$(BUILD)/lib%.so)
# The plugins' objects of the direct build are reached only through the
# unit tests' pattern rule: kept, not remade on every make.
.SECONDARY: $(OBJS)
HDRS      := $(shell find generic -name '*.h')
UNITSRC   := $(sort $(wildcard tests/unit/test_*.c))
UNITBIN   := $(UNITSRC:tests/unit/%.c=$(BUILD)/tests/%)
LIBTCL    := $(sort $(wildcard library/*.tcl))

INCS      = -Igeneric $(TCL_CFLAGS)
# Debian's multiarch triplet: the Debian package's Tcl directory is
# lib/tcltk/TRIPLET, where the program looks for its plugins and glue.
MULTIARCH_CC := $(shell $(CC) -print-multiarch 2>/dev/null)
CFLAGS_ALL = -DRB_MULTIARCH=\"$(MULTIARCH_CC)\" $(OPT) -g -std=gnu11 -fPIC -Wall -Wextra -Wno-unused-parameter \
	     -Wno-missing-field-initializers -D_GNU_SOURCE -DUSE_TCL_STUBS \
	     $(SANITIZE) $(INCS) $(XLSX_CFLAGS) $(STARDUST_CFLAGS) $(MPI_CFLAGS) $(CPPFLAGS) $(CFLAGS)
LDLIBS_ALL = -lz -lbz2 -lzstd -lm -lpthread -ldl $(STARDUST_LIBS)
# Open MPI and libxlsxwriter are linked only into librubiconmpi.so and
# librubiconxlsx.so, which the program and the library load when a run
# needs them (mpirun started it; it writes a workbook): see
# generic/core/glue.h.  Linking both and their dependencies into every
# run cost a plain run about 3 ms of its start-up.
GLUELIBS  = $(if $(MPI_LIBS),$(BUILD)/librubiconmpi.so) \
	    $(if $(XLSX_LIBS),$(BUILD)/librubiconxlsx.so)

.PHONY: all deps check unit tcltest demo bench fuzz install install-files uninstall deb \
	clean distclean \
	check-asan check-valgrind

all: $(BUILD)/librubicon.so $(PLUGINLIBS) $(GLUELIBS) $(BUILD)/pkgIndex.tcl $(BUILD)/rubicon \
     $(BUILD)/plugin/liblargeio.so $(BUILD)/paper/libpaperexample.so

# Regenerated with the options configure was first run with.
config.mk: configure config.mk.in
	@if test -f config.status; then ./config.status --recheck >/dev/null && \
	    ./config.status -q; else ./configure -q; fi

configure: configure.ac
	autoconf

deps:
	@sh scripts/ensure-deps.sh

$(BUILD)/obj/%.o: %.c $(HDRS) config.mk
	@mkdir -p $(dir $@)
	@echo "CC $<"
	@$(CC) $(CFLAGS_ALL) -c $< -o $@

# The package's Tcl half is compiled into the library, so the shared
# object and the shell need no library path at run time.
$(BUILD)/gen/libscript.c: $(LIBTCL) scripts/embed.tcl
	@mkdir -p $(dir $@)
	@tclsh scripts/embed.tcl $@ $(LIBTCL)

$(BUILD)/obj/libscript.o: $(BUILD)/gen/libscript.c
	@mkdir -p $(dir $@)
	@$(CC) $(CFLAGS_ALL) -c $< -o $@

$(BUILD)/librubicon.so: $(COREOBJS) $(BUILD)/obj/libscript.o
	@echo "LD $@"
	@$(CC) -shared $(SANITIZE) $(LDFLAGS) -o $@ $^ $(TCL_STUBLIBS) $(LDLIBS_ALL)

$(BUILD)/librubiconmpi.so: unix/mpiGlue.c generic/core/mpiGlue.h config.mk
	@mkdir -p $(dir $@)
	@echo "LD $@"
	@$(CC) $(CFLAGS_ALL) -shared $(LDFLAGS) -Wl,--no-undefined -o $@ $< $(MPI_LIBS)

$(BUILD)/librubiconxlsx.so: unix/xlsxGlue.c generic/reporters/xlsxGlue.h config.mk
	@mkdir -p $(dir $@)
	@echo "LD $@"
	@$(CC) $(CFLAGS_ALL) -shared $(LDFLAGS) -Wl,--no-undefined -o $@ $< $(XLSX_LIBS)

# A plugin's objects, compiled to reach Rubicon through its stubs table;
# --no-undefined makes a call past the public API fail the link.
$(BUILD)/pobj/%.o: %.c $(HDRS) config.mk
	@mkdir -p $(dir $@)
	@echo "CC $< (plugin)"
	@$(CC) $(CFLAGS_ALL) -DUSE_RUBICON_STUBS -c $< -o $@

define PLUGIN_LIB
$$(BUILD)/lib$(1).so: $$(patsubst %.c,$$(BUILD)/pobj/%.o,$$(wildcard generic/plugins/$(1)/*.c))
	@echo "LD $$@"
	@$$(CC) -shared $$(SANITIZE) $$(LDFLAGS) -Wl,--no-undefined -o $$@ $$^ \
	    $$(TCL_STUBLIBS) -lm -lpthread $(2)
endef
$(foreach p,$(PLUGINS),$(eval $(call PLUGIN_LIB,$(p),$(if $(filter stardust,$(p)),$$(STARDUST_LIBS)))))

$(BUILD)/pkgIndex.tcl: library/pkgIndex.tcl.in
	@sed -e 's/@VERSION@/$(VERSION)/' $< > $@

$(BUILD)/rubicon: unix/rbMain.c $(COREOBJS) $(BUILD)/obj/libscript.o
	@echo "LD $@"
	@$(CC) $(CFLAGS_ALL) $(LDFLAGS) -UUSE_TCL_STUBS -o $@ $^ $(TCL_LIBS) $(TCL_STUBLIBS) $(LDLIBS_ALL)

$(BUILD)/tests/%: tests/unit/%.c tests/unit/rbtest.h $(OBJS) $(BUILD)/obj/libscript.o
	@mkdir -p $(dir $@)
	@echo "LD $@"
	@$(CC) $(CFLAGS_ALL) -UUSE_TCL_STUBS $(CHECK_CFLAGS) -Itests/unit -o $@ $< \
	    $(OBJS) $(BUILD)/obj/libscript.o $(TCL_LIBS) $(TCL_STUBLIBS) $(CHECK_LIBS) $(LDLIBS_ALL)

# The example plugin, built as an outside author would build it.
$(BUILD)/plugin/liblargeio.so: examples/plugin/largeIo.c examples/plugin/devLatency.c generic/rubicon.h generic/rubiconDecls.h
	@mkdir -p $(dir $@)
	@echo "LD $@"
	@$(MAKE) --no-print-directory -s -C examples/plugin OUT=$(CURDIR)/$(BUILD)/plugin \
	    CC="$(CC) $(SANITIZE)" RUBICON_INCLUDE=$(CURDIR)/generic TCL_INCLUDE="$(patsubst -I%,%,$(TCL_CFLAGS))"

# The paper's extension examples (its Figures 5 to 7), built the same way.
$(BUILD)/paper/libpaperexample.so: examples/paper/avRequestSize.c generic/rubicon.h generic/rubiconDecls.h
	@mkdir -p $(dir $@)
	@echo "LD $@"
	@$(MAKE) --no-print-directory -s -C examples/paper OUT=$(CURDIR)/$(BUILD)/paper \
	    CC="$(CC) $(SANITIZE)" TCL_INCLUDE="$(patsubst -I%,%,$(TCL_CFLAGS))"

unit: all $(UNITBIN)
	@JOBS=$(JOBS) sh tests/run-unit.sh $(BUILD) $(UNITBIN)

tcltest: all
	@sh tests/run-tcltest.sh $(BUILD) $(JOBS)

# The full check, in two builds: the C units on the optimised build, then
# the units and every tcltest file on the ASan/UBSan build in build-asan/.
# Test programs and tcltest files run JOBS at a time.  Memcheck is not part
# of it (the units under ASan with leak detection cover what it finds but
# reads of uninitialised memory, at a twentieth of the cost): run
# `make check-valgrind` for it.
JOBS     ?= 2
JFLAG     = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(JOBS))
ASANFLAGS = BUILD=build-asan OPT=-O1 \
	    SANITIZE="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"

check:
	@$(MAKE) --no-print-directory $(JFLAG) all $(UNITBIN)
	@rm -f $(BUILD)/results.txt
	@JOBS=$(JOBS) sh tests/run-unit.sh $(BUILD) $(UNITBIN) | tee -a $(BUILD)/results.txt
	@$(MAKE) --no-print-directory check-asan RESULTS=$(CURDIR)/$(BUILD)/results.txt CHECKING=1
	@sh tests/summary.sh $(BUILD)/results.txt

# Alone, make check-asan keeps its own results and ends with the closing
# line (and its exit status) too.  The tcltest pass runs with leak
# detection on; its reports go to build-asan/lsan/ (they would otherwise
# reach the stderr of every program the tests start, gnuplot and fio
# included, whose own leaks are not Rubicon's), and tests/lsan-check.sh
# fails the pass on each one with a frame in Rubicon's sources.  No
# suppression is needed: Tcl's own allocations are freed at exit.
RESULTS ?= $(CURDIR)/build-asan/results.txt
check-asan:
	@$(MAKE) --no-print-directory $(JFLAG) $(ASANFLAGS) all asan-units
	@test -n "$(CHECKING)" || rm -f $(RESULTS)
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 JOBS=$(JOBS) \
	    sh tests/run-unit.sh build-asan $(patsubst $(BUILD)/%,build-asan/%,$(UNITBIN)) | sed 's/^/asan /' | tee -a $(RESULTS)
	@rm -rf build-asan/lsan; mkdir -p build-asan/lsan
	@LD_PRELOAD=$$(gcc -print-file-name=libasan.so) \
	    ASAN_OPTIONS=detect_leaks=1:log_path=$(CURDIR)/build-asan/lsan/log \
	    LSAN_OPTIONS=exitcode=0 \
	    sh tests/run-tcltest.sh build-asan $(JOBS) | sed 's/^/asan /' | tee -a $(RESULTS)
	@sh tests/lsan-check.sh build-asan/lsan | sed 's/^/asan /' | tee -a $(RESULTS)
	@test -n "$(CHECKING)" || sh tests/summary.sh $(RESULTS)

asan-units: $(UNITBIN)

check-valgrind: $(UNITBIN)
	@rm -f $(BUILD)/results-valgrind.txt
	@VALGRIND=1 JOBS=$(JOBS) sh tests/run-unit.sh $(BUILD) $(UNITBIN) | sed 's/^/valgrind /' | tee -a $(BUILD)/results-valgrind.txt
	@sh tests/summary.sh $(BUILD)/results-valgrind.txt

# The demo's trace is kept in the repository (data/README.md says where it
# comes from).
DEMOTRACE = data/srt/hourly.03126.srt.bz2
demo: all
	@mkdir -p $(BUILD)/demo
	cd $(BUILD)/demo && $(CURDIR)/$(BUILD)/rubicon $(CURDIR)/examples/demo.tcl $(CURDIR)/$(DEMOTRACE)
	@echo "demo: reports written to $(BUILD)/demo/"

bench: all
	@sh tests/bench/run.sh $(BUILD)

fuzz:
	@sh tests/fuzz/run.sh

# INSTALL LAYOUT (TEA and Debian conventions), under $(DESTDIR)$(PREFIX):
#   bin/rubicon, bin/rubicon-genconfig
#   lib/tcltk/rubicon$(VERSION)/     pkgIndex.tcl and the package's shared
#                                    libraries (Debian's tclsh searches
#                                    /usr/local/lib/tcltk and /usr/lib/tcltk)
#   include/rubicon.h, include/rubiconDecls.h   the plugin API and its
#                                    stubs table (plugins link no Rubicon
#                                    library, only Tcl's stub library)
#   lib/pkgconfig/rubicon.pc         pkg-config --cflags --libs rubicon
#   share/man/mann/rubicon.n, rubicon-genconfig.n, and rubicon-X.n for
#                                    each other page doc/X.n (its own name:
#                                    doc/csv.n is rubicon-csv(n), so that
#                                    `man csv` still finds tcllib's csv;
#                                    references such as csv(n) in the
#                                    pages say rubicon-csv(n))
#   lib/tcltk/rubicon$(VERSION)/install-dirs   the directories install
#                                    created, for uninstall
bindir     = $(PREFIX)/bin
tcltkdir  ?= $(PREFIX)/lib/tcltk
pkgdir     = $(tcltkdir)/rubicon$(VERSION)
includedir = $(PREFIX)/include
pcdir     ?= $(PREFIX)/lib/pkgconfig
mandir     = $(PREFIX)/share/man
MANPAGES  := $(sort $(wildcard doc/*.n))
MANPROGS   = rubicon rubicon-genconfig
MANNAMES   = $(foreach p,$(MANPAGES:doc/%.n=%),$(if $(filter $(MANPROGS),$(p)),$(p),rubicon-$(p)))
SDKHDRS    = generic/rubicon.h generic/rubiconDecls.h
INSTALLED  = $(bindir)/rubicon $(bindir)/rubicon-genconfig \
	     $(SDKHDRS:generic/%=$(includedir)/%) $(pcdir)/rubicon.pc \
	     $(MANNAMES:%=$(mandir)/mann/%.n)
INSTALLDIRS = $(bindir) $(pkgdir) $(includedir) $(pcdir) $(mandir)/mann
DIRLIST    = $(DESTDIR)$(pkgdir)/install-dirs

install: all
	@$(MAKE) --no-print-directory install-files

# Installs what the build left in $(BUILD) without building, so a test can
# install the build it runs on (build-asan included).  Before creating
# them, notes in DIRLIST each directory (and parent) that did not exist,
# keeping what an earlier install noted: uninstall removes only those.
install-files:
	@for d in $(INSTALLDIRS); do \
	    while [ "$$d" != / ] && [ "$$d" != . ] && [ ! -d "$(DESTDIR)$$d" ]; do \
		echo "$$d"; d=$$(dirname "$$d"); done; \
	done > $(BUILD)/install-dirs.new; \
	test ! -f $(DIRLIST) || cat $(DIRLIST) >> $(BUILD)/install-dirs.new
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(pkgdir) $(DESTDIR)$(includedir) \
	    $(DESTDIR)$(pcdir) $(DESTDIR)$(mandir)/mann
	LC_ALL=C sort -u $(BUILD)/install-dirs.new > $(DIRLIST); rm -f $(BUILD)/install-dirs.new
	install -m 755 $(BUILD)/rubicon $(DESTDIR)$(bindir)/rubicon
	sed -e '/^set here /i lappend auto_path $(tcltkdir)' scripts/rubicon-genconfig \
	    > $(DESTDIR)$(bindir)/rubicon-genconfig
	chmod 755 $(DESTDIR)$(bindir)/rubicon-genconfig
	install -m 644 $(BUILD)/pkgIndex.tcl $(DESTDIR)$(pkgdir)/
	install -m 644 $(BUILD)/lib*.so $(DESTDIR)$(pkgdir)/
	install -m 644 $(SDKHDRS) $(DESTDIR)$(includedir)/
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@VERSION@|$(VERSION)|' \
	    -e 's|@TCL_CFLAGS@|$(TCL_CFLAGS)|; s|@TCL_STUBLIBS@|$(TCL_STUBLIBS)|' \
	    -e 's|@TCLTKDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(tcltkdir))|' \
	    unix/rubicon.pc.in > $(DESTDIR)$(pcdir)/rubicon.pc
	@for b in $(MANPAGES:doc/%.n=%); do \
	    case " $(MANPROGS) " in *" $$b "*) continue;; esac; \
	    t=$$(sed -n 's/^\.TH \([^ ]*\) .*/\1/p' doc/$$b.n | head -n 1); \
	    printf '%s\n' 's/\(^\|[^A-Za-z0-9_:-]\)'"$$t"'(n)/\1rubicon-'"$$b"'(n)/g' \
		's/\\fB'"$$t"'\\fR(n)/\\fBrubicon-'"$$b"'\\fR(n)/g'; \
	done > $(BUILD)/man-names.sed
	@for b in $(MANPAGES:doc/%.n=%); do \
	    case " $(MANPROGS) " in *" $$b "*) n=$$b;; *) n=rubicon-$$b;; esac; \
	    sed -e "1,/^\.TH /s/^\.TH [^ ]* /.TH $$n /" -e "/^\.SH NAME/{n;s/^$$b\([ ,]\)/$$n\1/;}" \
		-f $(BUILD)/man-names.sed doc/$$b.n > $(DESTDIR)$(mandir)/mann/$$n.n || exit 1; \
	    chmod 644 $(DESTDIR)$(mandir)/mann/$$n.n; \
	done

# Removes the files install-files wrote and the package's own directory,
# then, deepest first, those directories install created (DIRLIST) that
# are empty: never one that was there before the install.
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	@dirs=$$(LC_ALL=C sort -r $(DIRLIST) 2>/dev/null); \
	rm -rf $(DESTDIR)$(pkgdir); \
	for d in $$dirs; do \
	    if [ -d "$(DESTDIR)$$d" ] && [ -z "$$(ls -A "$(DESTDIR)$$d")" ]; then \
		echo "rmdir $(DESTDIR)$$d"; rmdir "$(DESTDIR)$$d"; fi; \
	done

# A Debian binary package of the installed layout under /usr, built by
# dpkg-deb into $(BUILD)/deb/: compiled in $(BUILD)/deb-build with Debian's
# hardening flags, the Tcl package in Debian's arch-dependent Tcl
# directory, the pages in sections 1 (the two programs) and 3tcl (the
# commands and classes, under their installed names: rubicon-csv.3tcl
# beside tcllib's csv.3tcl) as Debian's Tcl policy has them, Depends from
# dpkg-shlibdeps.  tests/fresh-debian.sh installs it beside tcllib.
DEBARCH   = $(shell dpkg --print-architecture)
MULTIARCH = $(shell dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
DEBVER    = $(VERSION)-1
DEBROOT   = $(BUILD)/deb/debian/rubicon
DEBFILE   = $(BUILD)/deb/rubicon_$(DEBVER)_$(DEBARCH).deb
DEBFLAGS  = $(shell DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --export=make \
	      | sed -n 's/^export \(CFLAGS\|CPPFLAGS\|LDFLAGS\) *:= *\(.*\)/\1="\2"/p')
MANDEB    = $(DEBROOT)/usr/share/man

deb:
	rm -rf $(BUILD)/deb
	$(MAKE) --no-print-directory $(JFLAG) BUILD=$(BUILD)/deb-build $(DEBFLAGS) all
	$(MAKE) --no-print-directory -s install-files BUILD=$(BUILD)/deb-build \
	    DESTDIR=$(CURDIR)/$(DEBROOT) PREFIX=/usr \
	    tcltkdir=/usr/lib/tcltk/$(MULTIARCH) pcdir=/usr/lib/$(MULTIARCH)/pkgconfig
	rm $(DEBROOT)/usr/lib/tcltk/$(MULTIARCH)/rubicon$(VERSION)/install-dirs
	sed -i '1s|^#!/usr/bin/env tclsh|#!/usr/bin/tclsh|' $(DEBROOT)/usr/bin/rubicon-genconfig
	strip --strip-unneeded --remove-section=.comment --remove-section=.note \
	    $(DEBROOT)/usr/bin/rubicon $(DEBROOT)/usr/lib/tcltk/$(MULTIARCH)/rubicon$(VERSION)/*.so
	install -d $(MANDEB)/man1 $(MANDEB)/man3
	for f in $(MANDEB)/mann/*.n; do \
	    b=$$(basename $$f .n); \
	    case $$b in rubicon|rubicon-genconfig) s=1;; *) s=3tcl;; esac; \
	    sed -e "/^\.TH/s/^\(\.TH [^ ]*\) n /\1 $$s /" \
		-e 's/\(rubicon-genconfig\(\\fR\)*\)(n)/\1(1)/g' \
		-e 's/\(rubicon-[A-Za-z0-9_]*\(\\fR\)*\)(n)/\1(3tcl)/g' \
		-e 's/\(rubicon\(\\fR\)*\)(n)/\1(1)/g' $$f | gzip -9n \
		> $(MANDEB)/man$${s%tcl}/$$b.$$s.gz; \
	done; rm -r $(MANDEB)/mann
	install -d $(DEBROOT)/usr/share/doc/rubicon $(DEBROOT)/DEBIAN
	install -m 644 unix/debian/copyright $(DEBROOT)/usr/share/doc/rubicon/
	sed -e 's/@DEBVER@/$(DEBVER)/; s/@DATE@/$(shell date -R -d @$$(git log -1 --format=%ct 2>/dev/null || date +%s))/' \
	    unix/debian/changelog.in | gzip -9n > $(DEBROOT)/usr/share/doc/rubicon/changelog.Debian.gz
	cd $(BUILD)/deb && mkdir -p debian && cp $(CURDIR)/unix/debian/control.in debian/control && \
	    dpkg-shlibdeps -Tshlibs.substvars -e debian/rubicon/usr/bin/rubicon \
		$(patsubst %,-e debian/rubicon/usr/lib/tcltk/$(MULTIARCH)/rubicon$(VERSION)/lib%.so,rubicon $(PLUGINS) $(if $(MPI_LIBS),rubiconmpi) $(if $(XLSX_LIBS),rubiconxlsx))
	sed -e 's/@DEBVER@/$(DEBVER)/; s/@ARCH@/$(DEBARCH)/' \
	    -e "s/@SHLIBS@/$$(sed -n 's/^shlibs:Depends=//p' $(BUILD)/deb/shlibs.substvars)/" \
	    -e "s/@SIZE@/$$(du -sk --exclude=DEBIAN $(DEBROOT) | cut -f1)/" \
	    unix/debian/control.in | sed '/^Source:/d' > $(DEBROOT)/DEBIAN/control
	cd $(DEBROOT) && find usr -type f | sort | xargs md5sum > DEBIAN/md5sums
	dpkg-deb --root-owner-group -Zxz --build $(DEBROOT) $(DEBFILE)
	@echo "deb: $(DEBFILE)"

clean:
	rm -rf build build-asan

distclean: clean
	rm -rf config.mk configure config.log config.status autom4te.cache
