# Rails-style controller that restores state the client sends back.
class ImportsController < ApplicationController
  def create
    doc = YAML.load(params[:document])  # VULN
    render json: { keys: doc.keys }
  end

  def restore
    state = Marshal.load(Base64.decode64(cookies[:wizard]))  # VULN
    @step = state[:step]
  end
end
