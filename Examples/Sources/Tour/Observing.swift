import Foundation
import Strata

func observing(_ store: Store) async throws {
    let task = Task {
        // snippet: observation
        for try await bluths in store.observe(User.self, { try $0.where("lastName == %@", "Bluth").sorted(by: "luckyNumber desc") }) {
            print(bluths.map(\.firstName))        // now, then after every commit that changes the result
        }
        // end snippet: observation
    }
    try await Task.sleep(for: .milliseconds(100))
    task.cancel()
}
