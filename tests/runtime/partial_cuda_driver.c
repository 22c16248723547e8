/* A library that defines only the CUDA driver's device queries: how
 * tst_cuda_driver sees that a driver lacking the functions for memory,
 * modules, launches and events is refused with each missing one named. Its
 * functions are never called (the binding fails first). */
int cuInit(unsigned int flags) {
  return (int)flags;
}
int cuDriverGetVersion(int* version) {
  return version ? 0 : 1;
}
int cuDeviceGetCount(int* count) {
  return count ? 0 : 1;
}
int cuDeviceGet(int* device, int ordinal) {
  return device && ordinal == 0 ? 0 : 1;
}
int cuDeviceGetName(char* name, int length, int device) {
  return name && length > device ? 0 : 1;
}
int cuDeviceGetAttribute(int* value, int attribute, int device) {
  return value && attribute >= 0 && device == 0 ? 0 : 1;
}
int cuDeviceTotalMem_v2(unsigned long* bytes, int device) {
  return bytes && device == 0 ? 0 : 1;
}
int cuGetErrorName(int error, const char** name) {
  return name && error ? 0 : 1;
}
int cuGetErrorString(int error, const char** text) {
  return text && error ? 0 : 1;
}
