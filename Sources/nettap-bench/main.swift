print("nettap-bench")
