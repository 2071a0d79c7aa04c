module ProfilesHelper
  def bio_html
    sanitize(params[:bio])
  end

  def title_html(post)
    content_tag(:h1, post.title)
  end
end
