import CFuzzer
import Foundation

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
    fuzzReplicate(UnsafeRawPointer(data ?? UnsafePointer(bitPattern: 1)!), size)
})

/// Also the classic entry, for when the linker takes libFuzzer's own `main`.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzReplicate(UnsafeRawPointer(data ?? UnsafePointer(bitPattern: 1)!), size)
}
