struct bad {
	no_such_type member;
};
