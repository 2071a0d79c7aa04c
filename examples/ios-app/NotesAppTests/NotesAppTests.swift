import XCTest
@testable import NotesApp

final class NotesAppTests: XCTestCase {
    func testContainerLoads() {
        XCTAssertNotNil(PersistenceController.shared.container.viewContext)
    }
}
