/// The version of Strata, in one place: `strata --version` prints it, and a test
/// (`ReleaseTests`) holds it equal to the newest release in `CHANGELOG.md` and to the README's
/// dependency line. Scripts read it from this file (`tools/install`, `tools/check-dependency-line`).
enum StrataVersion {
    /// A semantic version, `MAJOR.MINOR.PATCH`; the release's tag is `v` and this.
    static let current = "0.3.0"
}
