"""Precision on clean code (issue 14): shapes from real projects that are not what a
security engineer would act on are reported lower or not at all, and the dangerous
twin beside each is still reported at full severity.

- TLS checks turned off only behind an explicit opt-in (`--insecure`, `skip_verify`) are
  reported at low; turned off unconditionally, at the rule's severity.
- Ruby deserialization is graded by what is known: request data (high), an explicitly
  unsafe loader on data of unknown origin (medium), `YAML.load` of unknown origin (low:
  safe from Psych 4 on), `permitted_classes` (not reported).
- A path or URL taken from the command line or the environment is not request data.
"""

from __future__ import annotations

from functools import lru_cache

from sec_helpers import source

from aiagent.engines.security.finding import Finding, Severity
from aiagent.engines.security.scanners.sast import SastScanner


@lru_cache(maxsize=1)
def scanner() -> SastScanner:
    return SastScanner()


def scan(code: str, rel: str) -> list[Finding]:
    return scanner().scan_file(source(rel), code.encode())


def severities(code: str, rel: str, rule_id: str) -> list[tuple[int, Severity]]:
    return [(f.location.start_line, f.severity) for f in scan(code, rel) if f.id == rule_id]


OKCURL = """\
class Main : CliktCommand() {
  val allowInsecure: Boolean by option("-k", "--insecure").flag()

  fun createClient(): Call.Factory {
    val builder = OkHttpClient.Builder()
    if (allowInsecure) {
      val trustManager = createInsecureTrustManager()
      builder.hostnameVerifier(createInsecureHostnameVerifier())
    }
    return builder.build()
  }

  private fun createInsecureTrustManager(): X509TrustManager =
    object : X509TrustManager {
      override fun checkServerTrusted(chain: Array<X509Certificate>, authType: String) {
      }
    }

  private fun createInsecureHostnameVerifier(): HostnameVerifier = HostnameVerifier { _, _ -> true }
}
"""


def test_kotlin_tls_off_behind_insecure_flag_is_low() -> None:
    assert severities(OKCURL, "okcurl/Main.kt", "KT-TLS-001") == [(15, Severity.LOW), (19, Severity.LOW)]
    (finding, _) = [f for f in scan(OKCURL, "okcurl/Main.kt") if f.id == "KT-TLS-001"]
    assert finding.metadata["opt_in"] == "allowInsecure"
    assert finding.metadata["original_severity"] == "high"


def test_kotlin_tls_off_unconditionally_stays_high() -> None:
    # the same helpers, also called outside the flag: no longer an opt-in
    code = OKCURL.replace("    return builder.build()",
                          "    builder.hostnameVerifier(createInsecureHostnameVerifier())\n"
                          "    return builder.build()")
    assert severities(code, "Main.kt", "KT-TLS-001") == [(16, Severity.LOW), (20, Severity.HIGH)]
    plain = "val client = OkHttpClient.Builder().hostnameVerifier { _, _ -> true }.build()\n"
    assert severities(plain, "Net.kt", "KT-TLS-001") == [(1, Severity.HIGH)]


GO = """\
package main

func tlsConfig() *tls.Config {
	return &tls.Config{InsecureSkipVerify: true}
}

func client(opts Options) *http.Client {
	cfg := &tls.Config{}
	if opts.SkipVerify {
		cfg.InsecureSkipVerify = true
	}
	if *insecureFlag {
		cfg = tlsConfig()
	}
	if debug {
		cfg.InsecureSkipVerify = true
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}}
}
"""


def test_go_tls_off_graded_by_its_guard() -> None:
    # a helper called only under the flag, an assignment under a skip-verify option: low;
    # under an unrelated condition (debug): high
    assert severities(GO, "client.go", "GO-TLS-001") == [
        (4, Severity.LOW), (10, Severity.LOW), (16, Severity.HIGH)]


def test_python_and_ruby_guards() -> None:
    py = ("def fetch(url, args):\n"
          "    if args.insecure:\n"
          "        return requests.get(url, verify=False)\n"
          "    return requests.get(url, verify=False)\n")
    assert severities(py, "cli.py", "PY-TLS-001") == [(3, Severity.LOW), (4, Severity.HIGH)]
    rb = ("http.verify_mode = OpenSSL::SSL::VERIFY_NONE if options[:insecure]\n"
          "http.verify_mode = OpenSSL::SSL::VERIFY_NONE\n")
    assert severities(rb, "lib/client.rb", "RB-TLS-001") == [(1, Severity.LOW), (2, Severity.HIGH)]


SINATRA_CONFIG = """\
def config_file(*paths)
  paths.each do |file|
    document = ERB.new(File.read(file)).result
    yaml = YAML.respond_to?(:unsafe_load) ? YAML.unsafe_load(document) : YAML.load(document)
  end
end

post '/import' do
  data = YAML.load(params[:doc])
  obj = Marshal.load(Base64.decode64(cookies[:state]))
  safe = YAML.load(params[:doc], permitted_classes: [Date])
end
"""


def test_ruby_deserialization_graded_by_what_is_known() -> None:
    found = sorted((f.location.start_line, f.id, f.severity) for f in scan(SINATRA_CONFIG, "lib/app.rb")
                   if f.cwe == "CWE-502")
    assert found == [
        (4, "RB-DESER-002", Severity.MEDIUM),  # unsafe_load of a config file
        (4, "RB-DESER-003", Severity.LOW),     # YAML.load of a config file (Psych < 4 only)
        (9, "RB-DESER-001", Severity.HIGH),    # request data, whatever the Psych version
        (10, "RB-DESER-001", Severity.HIGH),   # one finding: the high rule claims the call
    ]


def test_cli_and_environment_paths_are_not_request_data() -> None:
    go = ("func CompDebug(msg string) {\n"
          '\tif path := os.Getenv("BASH_COMP_DEBUG_FILE"); path != "" {\n'
          "\t\tf, err := os.OpenFile(path, os.O_APPEND, 0644)\n"
          "\t}\n"
          "}\n"
          "func handler(w http.ResponseWriter, r *http.Request) {\n"
          '\tf, err := os.Open(r.URL.Query().Get("file"))\n'
          "}\n")
    assert [(f.id, f.location.start_line) for f in scan(go, "completions.go")
            if f.cwe == "CWE-22"] == [("GO-PATH-001", 7)]
