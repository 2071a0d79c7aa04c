class FilesController < ApplicationController
  def show
    path = File.join("public/uploads", params[:name])
    send_file path # VULN
  end

  def raw
    name = params[:file]
    render plain: File.read("storage/" + name) # VULN
  end
end
