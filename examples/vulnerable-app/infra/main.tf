resource "aws_s3_bucket_acl" "invoices" {
  bucket = "shop-invoices"
  acl    = "public-read"
}

resource "aws_security_group" "web" {
  name = "shop-web"

  ingress {
    from_port   = 22
    to_port     = 22
    protocol    = "tcp"
    cidr_blocks = ["0.0.0.0/0"]
  }

  egress {
    from_port   = 0
    to_port     = 0
    protocol    = "-1"
    cidr_blocks = ["0.0.0.0/0"]
  }
}

resource "aws_db_instance" "orders" {
  engine              = "postgres"
  instance_class      = "db.t3.micro"
  storage_encrypted   = false
  publicly_accessible = true
}
