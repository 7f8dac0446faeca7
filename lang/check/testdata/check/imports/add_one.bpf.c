int __add_one(int val) { return 1 + val; }
