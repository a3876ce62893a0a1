// The declaration in include/CFuzzer.h is all; libFuzzer (-sanitize=fuzzer) defines it.
