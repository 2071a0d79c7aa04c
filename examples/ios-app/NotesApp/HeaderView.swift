import SwiftUI

struct HeaderView: View {
    var body: some View {
        HStack {
            Image("Logo")
                .resizable()
                .frame(width: 32, height: 32)
                .accessibilityLabel("Notes logo")
            Text("My Notes").font(.title)
        }
    }
}
