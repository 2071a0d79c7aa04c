# Clean Ruby in the style of a web framework's extension: settings come from the
# application's own YAML (ERB-expanded) files, a debug log goes where the developer's
# environment says, and a test runner talks to the server it started. Written for aiagent.
module Settings
  def config_file(*paths)
    paths.each do |pattern|
      Dir.glob(pattern) do |file|
        document = ERB.new(File.read(file)).result
        yaml = YAML.respond_to?(:unsafe_load) ? YAML.unsafe_load(document) : YAML.load(document)
        yaml.each_pair { |key, value| set(key, value) }
      end
    end
  end

  def debug_log(message)
    path = ENV["APP_DEBUG_FILE"]
    File.open(path, "a") { |f| f.puts(message) } if path
  end

  def fetch(uri, insecure: false)
    http = Net::HTTP.new(uri.host, uri.port)
    http.use_ssl = uri.scheme == "https"
    http.verify_mode = OpenSSL::SSL::VERIFY_NONE if insecure
    http.request(Net::HTTP::Get.new(uri.request_uri)).body
  end
end
