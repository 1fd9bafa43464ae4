


k"/tmp/x.hsaco