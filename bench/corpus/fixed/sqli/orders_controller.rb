class OrdersController < ApplicationController
  def index
    @orders = Order.where(status: params[:status])
  end

  def report
    @total = Order.where("created_at > ?", params[:since]).sum(:total)
  end
end
