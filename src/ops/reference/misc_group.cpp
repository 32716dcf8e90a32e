// The misc family (see op_defs.h): shape ops (Shape, ConstantOfShape,
// NonZero), colour conversion (Nv12ToRgb, Nv21ToRgb), sliding-window patches
// (Im2Col, Col2Im, ExtractPatches), HadamardTransform, Stft and
// ImageProjectionTransform. Listed after every
// other family so the earlier ops keep their places.
#include "ops/op_defs.h"

namespace openhtp::ops::detail {

OpDef shape_def();              // shape_ops.cpp: native types
OpDef constant_of_shape_def();  // shape_ops.cpp: native types
OpDef non_zero_def();           // shape_ops.cpp: native types
OpDef nv12_to_rgb_def();        // nv_to_rgb.cpp: UINT_8
OpDef nv21_to_rgb_def();        // nv_to_rgb.cpp: UINT_8
OpDef im2col_def();             // patches.cpp: float (op_flags::kAdaptTypes)
OpDef col2im_def();             // patches.cpp: float (op_flags::kAdaptTypes)
OpDef extract_patches_def();    // patches.cpp: float (op_flags::kAdaptTypes)
OpDef hadamard_transform_def(); // hadamard_transform.cpp: float (op_flags::kAdaptTypes)
OpDef stft_def();               // stft.cpp: float (op_flags::kAdaptTypes)
OpDef image_projection_transform_def();  // image_projection_transform.cpp: float (op_flags::kAdaptTypes)

std::vector<OpDef> misc_group() {
  return {shape_def(),      constant_of_shape_def(), non_zero_def(),        nv12_to_rgb_def(),       nv21_to_rgb_def(),
          im2col_def(),     col2im_def(),            extract_patches_def(), hadamard_transform_def(), stft_def(),
          image_projection_transform_def()};
}

}  // namespace openhtp::ops::detail
