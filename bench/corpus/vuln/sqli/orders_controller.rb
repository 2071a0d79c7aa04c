class OrdersController < ApplicationController
  def index
    status = params[:status]
    @orders = Order.where("status = '#{status}'") # VULN
  end

  def report
    since = params[:since]
    sql = "SELECT sum(total) FROM orders WHERE created_at > '" + since + "'"
    @total = Order.find_by_sql(sql) # VULN
  end
end
