print("paysheet")
