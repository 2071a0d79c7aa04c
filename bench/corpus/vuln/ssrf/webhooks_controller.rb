class WebhooksController < ApplicationController
  def test
    url = params[:url]
    body = Net::HTTP.get(URI(url)) # VULN
    target = "https://#{params[:host]}/ping"
    resp = HTTParty.post(target) # VULN
    render json: { ok: body.present? && resp.ok? }
  end
end
