import Foundation
import Strata

// snippet: relationships-declare
struct Company: Record {
    var id: Int64
    var name: String
    static let primaryKey = \Company.id
}
struct Employee: Record {
    var id: Int64
    var name: String
    var companyID: Int64?                     // the reference: the company's primary key, or nil
    var skillIDs: [String] = []               // a key list: many-to-many without a link entity
    static let primaryKey = \Employee.id
    static let company = ToOne<Employee, Company>("company", \.companyID, inverse: "employees", deleteRule: .cascade)
    static let skills = ToMany<Employee, Skill>("skills", \.skillIDs, inverse: "holders")
    static let relationships: [AnyRelationship<Employee>] = [.init(company), .init(skills)]
}
struct Skill: Record {
    var id: String
    var title: String
    static let primaryKey = \Skill.id
}
// end snippet: relationships-declare

func relationships(path: String) throws {
    let store = try Store(path: path)
    let acme = Company(id: 1, name: "Acme")
    let ann = Employee(id: 10, name: "Ann", companyID: 1, skillIDs: ["swift", "sql"])
    try store.write { tx in
        try tx.insert(acme)
        try tx.insert([Skill(id: "swift", title: "Swift"), Skill(id: "sql", title: "SQL")])
        try tx.insert([ann, Employee(id: 11, name: "Bo", companyID: 1)])
    }
    // snippet: relationships-read
    try store.read { tx in
        let employer = try tx.parent(Employee.company, of: ann)            // Company?
        let staff = try tx.related(Employee.company, of: acme)             // [Employee], through the index on companyID
        let headcount = try tx.count(Employee.company, of: acme)           // counted in the index
        let skills = try tx.related(Employee.skills, of: ann)              // [Skill], in list order
        let swiftPeople = try tx.related(Employee.skills, listing: Skill(id: "swift", title: "Swift"))
        print(employer?.name ?? "-", staff.map(\.name), headcount, skills.map(\.title), swiftPeople.map(\.name))
    }
    // end snippet: relationships-read
    try store.read { tx in
        check(try tx.count(Employee.company, of: acme) == 2)
        check(try tx.related(Employee.skills, of: ann).map(\.id) == ["swift", "sql"])
    }
    // snippet: relationships-query
    try store.read { tx in
        let acmeStaff = try tx.query(Employee.self, "company.name == %@", "Acme").all()
        let busy = try tx.query(Company.self, "employees.@count > 1").all()
        let sqlShops = try tx.query(Company.self, "ANY employees.skills.title == 'SQL'").all()
        print(acmeStaff.count, busy.map(\.name), sqlShops.map(\.name))
        print(try tx.query(Company.self, "ANY employees.name BEGINSWITH 'A'").explain())   // SemiJoin(…) → …
    }
    // end snippet: relationships-query
    try store.read { tx in
        check(try tx.query(Employee.self, "company.name == %@", "Acme").count() == 2)
        check(try tx.query(Company.self, "employees.@count > 1").count() == 1)
    }
    // snippet: relationships-delete
    try store.write { tx in try tx.delete(Company.self, key: 1) }   // cascade: Ann and Bo go too
    // end snippet: relationships-delete
    check(try store.read { tx in try tx.count(Employee.self) } == 0)

    // snippet: relationships-nested-import
    let payload = Data("""
        [{"id": 2, "name": "Initech", "employees": [
            {"id": 20, "name": "Peter", "skills": [{"id": "tps", "title": "TPS reports"}]},
            {"id": 21, "name": "Milton", "skills": []}]}]
        """.utf8)
    let report = try store.importJSON(payload, as: Company.self,
                                      options: ImportOptions(related: [.record(Employee.self), .record(Skill.self)]))
    print(report.related)   // what happened to Employee and Skill records
    // end snippet: relationships-nested-import
    try store.read { tx in
        check(try tx.count(Employee.company, of: Company(id: 2, name: "Initech")) == 2, "\(report)")
        check(try tx.get(Skill.self, key: "tps")?.title == "TPS reports")
    }
}
