// HTML, CSV and SVG helpers of the reports (see html.h).
#include "tandem/common/html.h"

#include <cstdio>

namespace tandem::html {

std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  return out + "\"";
}

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
  return buf;
}

std::string SvgText(double x, double y, const std::string& text, const std::string& attrs) {
  return "<text x=\"" + Fixed(x, 1) + "\" y=\"" + Fixed(y, 1) + "\"" +
         (attrs.empty() ? "" : " " + attrs) + ">" + Escape(text) + "</text>";
}

std::string SvgRect(double x, double y, double w, double h, const std::string& fill,
                    const std::string& title) {
  std::string r = "<rect x=\"" + Fixed(x, 1) + "\" y=\"" + Fixed(y, 1) + "\" width=\"" +
                  Fixed(w, 1) + "\" height=\"" + Fixed(h, 1) + "\" fill=\"" + fill + "\"";
  if (title.empty()) return r + "/>";
  return r + "><title>" + Escape(title) + "</title></rect>";
}

}  // namespace tandem::html
