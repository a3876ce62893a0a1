import Foundation
import Testing
import TestSupport

/// A library for `LD_PRELOAD` that makes LMDB's meta-page writes return late: the window in which
/// the meta page (what `lastTransactionID` reads) shows a commit that new read transactions
/// cannot see yet, because LMDB publishes it in the lock file only after the write returns.
/// `STRATA_TEST_META_DELAY_US` sets the delay in microseconds (300,000 unless set). Built with
/// the toolchain's C compiler; nil without one.
enum SlowMetaPage {
    static func library(in dir: TemporaryDirectory) throws -> String? {
        let compiler = ["/usr/bin/cc", "/usr/bin/clang", "/usr/bin/gcc"].first { FileManager.default.isExecutableFile(atPath: $0) }
            ?? (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
                .map { "\($0)/clang" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let compiler else { return nil }
        let source = dir.path("slowmeta.c"), library = dir.path("slowmeta.so")
        if FileManager.default.fileExists(atPath: library) { return library }
        try Data(#"""
            #define _GNU_SOURCE
            #include <dlfcn.h>
            #include <stdlib.h>
            #include <unistd.h>
            #include <sys/types.h>
            #include <time.h>
            static ssize_t (*real)(int, const void *, size_t, off_t);
            ssize_t pwrite64(int fd, const void *buf, size_t count, off_t offset) {
                if (!real) real = (ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite64");
                ssize_t written = real(fd, buf, count, offset);
                if (offset > 0 && offset < 8192 && count <= 4096) {   /* a meta page */
                    const char *delay = getenv("STRATA_TEST_META_DELAY_US");
                    long micros = delay ? atol(delay) : 300000;
                    struct timespec pause = { micros / 1000000, (micros % 1000000) * 1000 };
                    nanosleep(&pause, NULL);
                }
                return written;
            }
            ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset) { return pwrite64(fd, buf, count, offset); }
            """#.utf8).write(to: URL(fileURLWithPath: source))
        let build = Process()
        build.executableURL = URL(fileURLWithPath: compiler)
        build.arguments = ["-shared", "-fPIC", "-o", library, source, "-ldl"]
        try build.run()
        build.waitUntilExit()
        try #require(build.terminationStatus == 0, "\(compiler) could not build the slow-meta-page library")
        return library
    }
}
