class FilesController < ApplicationController
  def show
    path = File.join("public/uploads", File.basename(params[:name]))
    send_file path
  end

  def raw
    render plain: File.read("storage/manual.txt")
  end
end
