#define GREETING "hi from a forced include"
