module ProfilesHelper
  def bio_html
    params[:bio].html_safe # VULN
  end

  def title_html(post)
    "<h1>#{post.title}</h1>".html_safe # VULN
  end
end
