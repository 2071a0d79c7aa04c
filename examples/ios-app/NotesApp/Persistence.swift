import CoreData

struct PersistenceController {
    static let shared = PersistenceController()
    let container: NSPersistentContainer

    init() {
        container = NSPersistentContainer(name: "Notes")
        container.loadPersistentStores { _, error in
            if let error { fatalError("store: \(error)") }
        }
    }
}
