import Foundation
import LocalAuthentication
import Security

final class SessionStore {
    func save(token: String) {
        UserDefaults.standard.set(token, forKey: "authToken")
    }

    func saveTheme(name: String) {
        UserDefaults.standard.set(name, forKey: "theme")
    }

    func unlock(completion: @escaping (Bool) -> Void) {
        let context = LAContext()
        context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Unlock") { ok, _ in
            completion(ok)
        }
    }

    func unlockWithFallback(completion: @escaping (Bool) -> Void) {
        LAContext().evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Unlock") { ok, _ in
            completion(ok)
        }
    }

    func debug(user: String, password: String) {
        print("login attempt for \(user) with password \(password)")
        print("login attempt for \(user)")
    }
}
