class ExportsController < ApplicationController
  def create
    name = File.basename(params[:name])
    system("zip", "-r", "/tmp/#{name}.zip", "exports/")
    @out = `uptime`
  end
end
