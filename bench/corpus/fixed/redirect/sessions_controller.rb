class SessionsController < ApplicationController
  def create
    redirect_to root_path
  end
end
