// What a background job reports when it catches an exception: the error's
// own message (lathe::Error names the file, node or line it came from).
#pragma once

#include <QString>
#include <exception>

namespace lathe::studio {

inline QString exceptionText(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  } catch (...) {
    return QStringLiteral("unknown error");
  }
}

}  // namespace lathe::studio
