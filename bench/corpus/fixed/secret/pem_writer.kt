// The fixed twin of a pasted key: keys are generated at run time and written as PEM,
// credentials are built from the caller's values. Nothing here is a secret.
package example.tls

import java.security.KeyPair
import java.util.Base64

class HeldKey(private val keyPair: KeyPair) {
    fun privateKeyPkcs8Pem(): String =
        buildString {
            append("-----BEGIN PRIVATE KEY-----\n")
            append(Base64.getMimeEncoder().encodeToString(keyPair.private.encoded))
            append("\n-----END PRIVATE KEY-----\n")
        }
}

object Credentials {
    fun basic(username: String, password: String): String {
        val usernameAndPassword = "$username:$password"
        return "Basic " + Base64.getEncoder().encodeToString(usernameAndPassword.toByteArray())
    }
}
