class ExportsController < ApplicationController
  def create
    name = params[:name]
    system("zip -r /tmp/#{name}.zip exports/") # VULN
    host = params[:host]
    @out = `ping -c 1 #{host}` # VULN
  end
end
