# The fixed twin: JSON for client state, YAML.safe_load with an explicit class list.
class ImportsController < ApplicationController
  def create
    doc = YAML.safe_load(params[:document], permitted_classes: [Date])
    render json: { keys: doc.keys }
  end

  def restore
    state = JSON.parse(Base64.decode64(cookies[:wizard]))
    @step = state["step"]
  end
end
