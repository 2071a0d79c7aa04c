class SessionsController < ApplicationController
  def create
    back = params[:return_to]
    redirect_to back # VULN
  end
end
