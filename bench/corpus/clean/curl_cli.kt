// Clean Kotlin in the style of a curl-like command-line client: certificate checks are
// off only when the user passes --insecure (an explicit, documented opt-in). Written for
// aiagent; a scanner may report it, but not as critical/high.
package example.curl

import java.security.cert.X509Certificate
import javax.net.ssl.HostnameVerifier
import javax.net.ssl.X509TrustManager

class Main(private val allowInsecure: Boolean) {
    fun client(): OkHttpClient {
        val builder = OkHttpClient.Builder()
        if (allowInsecure) {
            builder.sslSocketFactory(socketFactory(insecureTrustManager()), insecureTrustManager())
            builder.hostnameVerifier(insecureHostnameVerifier())
        }
        return builder.build()
    }

    private fun insecureTrustManager(): X509TrustManager =
        object : X509TrustManager {
            override fun checkClientTrusted(chain: Array<X509Certificate>, authType: String) {
            }

            override fun checkServerTrusted(chain: Array<X509Certificate>, authType: String) {
            }

            override fun getAcceptedIssuers(): Array<X509Certificate> = arrayOf()
        }

    private fun insecureHostnameVerifier(): HostnameVerifier = HostnameVerifier { _, _ -> true }
}
