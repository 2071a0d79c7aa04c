import SwiftUI

struct ContentView: View {
    @FetchRequest(sortDescriptors: [SortDescriptor(\.createdAt, order: .reverse)])
    private var notes: FetchedResults<Note>

    var body: some View {
        // Deprecated since iOS 16: NavigationStack replaces it.
        NavigationView {
            List(notes) { note in
                Text(note.heading ?? "Untitled")
                    .foregroundStyle(Color("BrandColor"))
            }
            .toolbar {
                // An icon-only button with no accessibility label.
                Button(action: addNote) {
                    Image(systemName: "plus")
                }
            }
            .navigationTitle("Notes")
        }
    }

    private func addNote() {}
}
