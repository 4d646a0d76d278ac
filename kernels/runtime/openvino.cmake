# Finds OpenVINO's C++ runtime in its PyPI wheel and builds the openvino-cpu target on it, or a stub saying how to install it.

# The wheel ships a CMake package under <site-packages>/openvino/cmake; ask the python that owns it.
if(NOT OpenVINO_DIR)
  if(DEFINED ENV{PET_PYTHON} AND NOT "$ENV{PET_PYTHON}" STREQUAL "")
    set(_pet_ov_python "$ENV{PET_PYTHON}")
  else()
    find_program(_pet_ov_python NAMES python3 NO_CACHE)
  endif()
  if(_pet_ov_python)
    execute_process(
      COMMAND "${_pet_ov_python}" -c "import openvino, os; print(os.path.dirname(openvino.__file__))"
      OUTPUT_VARIABLE _pet_ov_package_dir
      OUTPUT_STRIP_TRAILING_WHITESPACE
      ERROR_QUIET
      RESULT_VARIABLE _pet_ov_result)
    if(_pet_ov_result EQUAL 0 AND EXISTS "${_pet_ov_package_dir}/cmake/OpenVINOConfig.cmake")
      set(OpenVINO_DIR "${_pet_ov_package_dir}/cmake" CACHE PATH "Directory of OpenVINOConfig.cmake (the openvino wheel's cmake/)" FORCE)
    endif()
  endif()
endif()

find_package(OpenVINO QUIET COMPONENTS Runtime ONNX)

if(OpenVINO_FOUND AND TARGET openvino::runtime)
  target_sources(pet_runtime PRIVATE ${CMAKE_CURRENT_LIST_DIR}/openvino_runtime.cpp)
  # Imported targets' include directories are SYSTEM, so OpenVINO's headers cannot fail -Werror.
  target_link_libraries(pet_runtime PRIVATE openvino::runtime)
  target_compile_definitions(pet_runtime PRIVATE PET_HAVE_OPENVINO=1)
  # The wheel's libs/ is on no loader path: executables linking pet_runtime carry it as an rpath;
  # libopenvino finds its plugins and frontends next to itself.
  get_target_property(_pet_ov_library openvino::runtime IMPORTED_LOCATION_RELEASE)
  if(NOT _pet_ov_library)
    get_target_property(_pet_ov_library openvino::runtime IMPORTED_LOCATION)
  endif()
  get_filename_component(_pet_ov_libs_dir "${_pet_ov_library}" DIRECTORY)
  target_link_options(pet_runtime INTERFACE "-Wl,-rpath,${_pet_ov_libs_dir}")
  message(STATUS "openvino-cpu: OpenVINO ${OpenVINO_VERSION} from ${_pet_ov_libs_dir}")
else()
  target_sources(pet_runtime PRIVATE ${CMAKE_CURRENT_LIST_DIR}/openvino_missing.cpp)
  message(STATUS "openvino-cpu: unavailable (OpenVINO's C++ runtime was not found); "
                 "run `bash scripts/install-deps.sh` (pip-installs the openvino wheel) and reconfigure")
endif()
