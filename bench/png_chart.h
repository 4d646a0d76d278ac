// Grouped bar charts rasterized with a built-in 5x7 bitmap font and written as RGB PNG files.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pet::bench {

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
  bool operator==(const Rgb&) const = default;
};

// An 8-bit RGB raster, row-major, three bytes a pixel.
struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> pixels;

  RgbImage(int w, int h, Rgb fill);
  Rgb at(int x, int y) const;
  // Writes one pixel; coordinates outside the image are ignored.
  void set(int x, int y, Rgb color);
  void fill_rect(int x0, int y0, int x1, int y1, Rgb color);  // [x0, x1) x [y0, y1), clipped
};

// The 5x7 glyph of a character (png_chart_font.cpp): seven rows, bit 4 the leftmost column;
// characters outside printable ASCII map to '?'.
std::array<uint8_t, 7> font_glyph(char c);

// Draws `text` with its top-left corner at (x, y), each font pixel `scale` x `scale` pixels.
// Characters outside printable ASCII are drawn as '?'.
void draw_text(RgbImage& image, int x, int y, const std::string& text, Rgb color, int scale = 1);
int text_width(const std::string& text, int scale = 1);

// One group of bars (e.g. one model and batch); values[i] belongs to series i, nullopt: no bar.
struct BarGroup {
  std::string label;  // "\n" splits it over two lines under the axis
  std::vector<std::optional<double>> values;
};

struct BarChart {
  std::string title;
  std::string y_label;
  std::vector<std::string> series;  // legend entries, one colour each
  std::vector<BarGroup> groups;
  std::optional<double> reference_line;  // a dashed horizontal line, e.g. at 1.0 for ratios
  std::optional<double> y_max;           // the axis top; default: a round number above the data
};

struct BarRect {
  int group = 0, series = 0;
  int x0 = 0, x1 = 0;        // columns [x0, x1)
  int top = 0, bottom = 0;   // rows [top, bottom); bottom is the axis line's row
  double value = 0;
};

// Where every bar lands; render_bar_chart draws exactly these rectangles.
struct ChartLayout {
  int width = 0, height = 0;
  int plot_left = 0, plot_right = 0, plot_top = 0, plot_bottom = 0;
  double y_max = 1;
  std::vector<BarRect> bars;
};

// The series' colours, in legend order (repeats after the palette's end).
Rgb series_color(int series);
// The smallest of 1, 2, 2.5, 5 times a power of ten that is >= value (value > 0), else 1.
double nice_ceiling(double value);
ChartLayout layout_bar_chart(const BarChart& chart);
RgbImage render_bar_chart(const BarChart& chart);

// The PNG byte stream of an image: signature, IHDR (8-bit RGB), one zlib IDAT, IEND.
std::string encode_png(const RgbImage& image);
// Writes encode_png(image) to `path`; UserError when the file cannot be written.
void write_png(const std::string& path, const RgbImage& image);

}  // namespace pet::bench
