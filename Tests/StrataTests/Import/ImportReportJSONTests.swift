import Foundation
import Testing
@testable import Strata

/// `ImportReport.json`: the one JSON form of a report, which `strata import --format json` prints
/// and the studio answers; every member either needs, in order.
@Suite struct ImportReportJSONTests {
    @Test func theReportsJSONHasEveryCountItsFailuresWithRecordAndCodeAndItsRelatedEntities() throws {
        var report = ImportReport(entity: "User")
        (report.records, report.inserted, report.updated, report.unchanged, report.deleted, report.skipped) = (6, 1, 1, 3, 2, 1)
        report.dryRun = true
        report.seconds = 0.12345
        var failure = StrataError(.invalidRecord, "record 5: 'lucky_number' is \"seven\", expected an integer")
        failure.record = 5
        report.failures = [failure, StrataError(.invalidQuery, "no record named")]
        var notes = RelatedImportCounts()
        (notes.inserted, notes.linked) = (2, 1)
        report.related = ["Note": notes]

        guard case .object(let members) = report.json else { Issue.record("not an object: \(report.json)"); return }
        #expect(members.map(\.key) == ["entity", "dryRun", "records", "inserted", "updated", "unchanged", "deleted", "skipped",
                                       "failures", "related", "seconds", "summary"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(report.json.jsonText.utf8)) as? [String: Any])
        #expect(object["entity"] as? String == "User" && object["dryRun"] as? Bool == true)
        #expect([object["records"], object["inserted"], object["updated"], object["unchanged"], object["deleted"], object["skipped"]]
            .map { $0 as? Int } == [6, 1, 1, 3, 2, 1])
        let failures = try #require(object["failures"] as? [[String: Any]])
        #expect(failures.count == 2)
        #expect(failures.first?["record"] as? Int == 5 && failures.first?["code"] as? String == "invalidRecord")
        #expect(failures.first?["message"] as? String == "record 5: 'lucky_number' is \"seven\", expected an integer")
        #expect(failures.last?["record"] is NSNull && failures.last?["code"] as? String == "invalidQuery")
        let related = try #require(object["related"] as? [String: [String: Int]])
        #expect(related == ["Note": ["inserted": 2, "updated": 0, "unchanged": 0, "deleted": 0, "linked": 1, "unlinked": 0]])
        #expect(object["seconds"] as? Double == 0.123)
        #expect(object["summary"] as? String == report.description)
    }
}
