#define FROM_DIR 7
