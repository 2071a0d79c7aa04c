class OrdersController < ApplicationController
  before_action :authenticate_user!

  def index
    @orders = current_user.orders.where(status: params[:status]).order(created_at: :desc)
  end

  def search
    @orders = Order.where("reference LIKE '%#{params[:q]}%'")
  end

  def by_state
    @orders = Order.where("state = ?", params[:state])
  end

  def invoice
    send_file params[:path]
  end

  def receipt
    name = File.basename(params[:name].to_s)
    send_file Rails.root.join("receipts", name)
  end

  def export
    system("zip -r /tmp/export.zip #{params[:dir]}")
    system("zip", "-r", "/tmp/export.zip", "public/exports")
    head :ok
  end

  def note
    @note = params[:note].html_safe
    @footer = "<hr>".html_safe
  end

  def import
    data = Marshal.load(Base64.decode64(params[:blob]))
    settings = YAML.safe_load(params[:settings])
    render json: { data: data, settings: settings }
  end
end
