/* Test header for TestIncludeFlags. */
#define PORT_BASE 8000
#define PORT (PORT_BASE + 80)
