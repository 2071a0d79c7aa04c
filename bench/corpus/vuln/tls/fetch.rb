# Fetches a partner's price list.
require "net/http"

def fetch_prices(uri)
  http = Net::HTTP.new(uri.host, uri.port)
  http.use_ssl = true
  http.verify_mode = OpenSSL::SSL::VERIFY_NONE  # VULN
  http.request(Net::HTTP::Get.new(uri.request_uri)).body
end
